//! Host microbenchmarks of the corpus routes: search, detail lookup, filtered lists and
//! evaluation, each through the whole request handler (`app::handle`) as the worker runs it,
//! plus the bare search function and evaluator, and the pure work whose cost grows with the
//! input: the template sanitiser on its worst cases and grounded context for the longest
//! finding accepted. Prints median, p99 and mean per call. Then grounding over whole reports
//! (`benches/reports`, about 200 to 20,000 characters): its parts and the whole `radref_ground`
//! tool call, median milliseconds per call and per 1,000 characters. Run with `make bench`.

use radref::app::handle;
use radref::config::Config;
use radref::corpus::compiled::SYSTEMS;
use radref::host::{block_on, HostServices};
use radref::http::{Method, Request};
use radref::knowledge::KNOWLEDGE;
use radref::services::App;
use std::hint::black_box;
use std::time::{Duration, Instant};

const ROUNDS: usize = 10_000;
const WARMUP: usize = 500;
/// Rows whose one call takes milliseconds run fewer times, so the whole bench stays short.
const HEAVY_ROUNDS: usize = 200;
const HEAVY_WARMUP: usize = 10;

/// The query mix: exact names, typos, categories and finding-like phrases.
const QUERIES: &[&str] = &[
    "fleischer",
    "tirads",
    "lungrads 4B",
    "bosniak IIF",
    "8 mm solid nodule",
    "adrenal incidentaloma washout",
    "pirads 4 transition zone",
    "LR-5",
    "recsit",
    "gallbladder polyp 7 mm",
];

fn measure(name: &str, f: impl FnMut(usize)) {
    measure_rounds(name, WARMUP, ROUNDS, f);
}

fn measure_rounds(name: &str, warmup: usize, rounds: usize, mut f: impl FnMut(usize)) {
    for i in 0..warmup {
        f(i);
    }
    let mut times: Vec<Duration> = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let start = Instant::now();
        f(i);
        times.push(start.elapsed());
    }
    times.sort();
    let median = times[rounds / 2];
    let p99 = times[rounds * 99 / 100];
    let mean = times.iter().sum::<Duration>() / rounds as u32;
    println!(
        "| {name:<44} | {:>9.1} | {:>9.1} | {:>9.1} |",
        median.as_nanos() as f64 / 1000.0,
        p99.as_nanos() as f64 / 1000.0,
        mean.as_nanos() as f64 / 1000.0
    );
}

fn main() {
    let config = Config {
        // The benchmark measures the routes, not the rate limit.
        corpus_rate_limit: u32::MAX,
        ..Config::default()
    };
    let app = App::new(config);
    let services = HostServices::default();
    let get = |target: &str| {
        let response = block_on(handle(&app, &services, Request::new(Method::Get, target)));
        assert_eq!(response.status, 200, "{target}");
        black_box(response.body.len());
    };
    let search_targets: Vec<String> = QUERIES
        .iter()
        .map(|q| format!("/api/v1/search?q={}", q.replace(' ', "+")))
        .collect();
    let detail_targets: Vec<String> = SYSTEMS
        .iter()
        .map(|s| format!("/api/v1/systems/{}", s.slug))
        .collect();
    println!(
        "{} systems; {ROUNDS} calls per row after {WARMUP} warm-up calls ({HEAVY_ROUNDS} after \
         {HEAVY_WARMUP} for the sanitiser and context rows); times in microseconds",
        SYSTEMS.len()
    );
    println!(
        "| {:<44} | {:>9} | {:>9} | {:>9} |",
        "operation", "median", "p99", "mean"
    );
    println!("|{:-<46}|{:->11}|{:->11}|{:->11}|", "", "", "", "");
    measure("search::search, query mix", |i| {
        black_box(radref::search::search(QUERIES[i % QUERIES.len()], 10));
    });
    measure("GET /api/v1/search?q= (query mix)", |i| {
        get(&search_targets[i % search_targets.len()])
    });
    // The HTTP benchmark's generated mix (written by `bench-export`), when it is there.
    if let Ok(text) = std::fs::read_to_string("build/bench/queries.txt") {
        let mix: Vec<String> = text
            .lines()
            .filter(|l| !l.is_empty())
            .map(radref::http::percent_decode)
            .collect();
        measure("search::search, generated mix (build/bench)", |i| {
            black_box(radref::search::search(&mix[i % mix.len()], 10));
        });
        if std::env::var_os("BENCH_SLOWEST").is_some() {
            let mut each: Vec<(Duration, &str)> = mix
                .iter()
                .map(|q| {
                    let start = Instant::now();
                    for _ in 0..20 {
                        black_box(radref::search::search(q, 10));
                    }
                    (start.elapsed() / 20, q.as_str())
                })
                .collect();
            each.sort();
            for (t, q) in each.iter().rev().take(12) {
                println!("  {:>8.1} us  {q}", t.as_nanos() as f64 / 1000.0);
            }
        }
    }
    measure("GET /api/v1/systems/{slug} (all slugs)", |i| {
        get(&detail_targets[i % detail_targets.len()])
    });
    measure("GET /api/v1/systems?organ=lung", |_| {
        get("/api/v1/systems?organ=lung")
    });
    measure("GET /api/v1/systems?modality=MR&family=lexicon", |_| {
        get("/api/v1/systems?modality=MR&family=lexicon")
    });
    measure("GET /api/v1/systems (all)", |_| get("/api/v1/systems"));
    // Evaluation: the evaluator alone on the compiled logic (TI-RADS, both units, with the
    // what-would-change probes), then through the whole handler, GET and markdown.
    let tirads = SYSTEMS
        .iter()
        .position(|s| s.slug == "acr-ti-rads-2017")
        .and_then(radref::corpus::compiled::logic)
        .expect("TI-RADS logic");
    let inputs = tirads
        .model()
        .inputs_from_query([
            ("composition", "solid"),
            ("echogenicity", "hypoechoic"),
            ("shape", "wider_than_tall"),
            ("margin", "smooth"),
            ("echogenic_foci", "none_or_large_comet_tail"),
            ("max_diameter_mm", "12"),
        ])
        .expect("TI-RADS inputs");
    measure("corpus::evaluate::evaluate, TI-RADS TR4 12 mm", |_| {
        black_box(radref::corpus::evaluate::evaluate(tirads.model(), &inputs, None).is_ok());
    });
    const EVALUATE: &[&str] = &[
        "/api/v1/systems/acr-ti-rads-2017/evaluate?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail&max_diameter_mm=12",
        "/api/v1/systems/fleischner-2017/evaluate?exclusions=&age_years=60&nodule_type=solid&nodule_number=single&size_mm=7&risk=low&typical_perifissural=false",
        "/api/v1/systems/acr-li-rads-ct-mri-v2018/evaluate?aphe=nonrim&size_mm=25&additional_major_features=nonperipheral_washout&not_categorizable=false&tumor_in_vein=false&benign_assessment=neither&lrm_targetoid=false&lrm_nontargetoid=false",
    ];
    measure("GET .../evaluate (TI-RADS, Fleischner, LI-RADS)", |i| {
        get(EVALUATE[i % EVALUATE.len()])
    });
    measure("GET .../evaluate&format=markdown (same mix)", |i| {
        get(&format!("{}&format=markdown", EVALUATE[i % EVALUATE.len()]))
    });
    measure("GET /api/v1/health (no corpus work)", |_| {
        get("/api/v1/health")
    });
    // The per-attempt work of a webhook delivery that is not I/O: opening the sealed secret and
    // both signatures over a 1 KiB envelope.
    let key = radref::config::SecretKey([7; 32]);
    let sealed = radref::webhooks::seal::seal(
        &key,
        "wh_0123456789abcdef01234567",
        "a-subscriber-secret-of-32-chars!",
        "000102030405060708090a0b0c0d0e0f1011121314151617",
    )
    .expect("seal");
    let body = vec![b'x'; 1024];
    measure("webhook: open the sealed secret", |_| {
        black_box(radref::webhooks::seal::open(
            &key,
            "wh_0123456789abcdef01234567",
            &sealed,
        ));
    });
    measure("webhook: both signatures, 1 KiB body", |_| {
        let secret = b"a-subscriber-secret-of-32-chars!";
        black_box(radref::webhooks::signature(secret, &body));
        black_box(radref::webhooks::standard_signature(
            secret,
            "evt_0123456789abcdef0123456789abcdef",
            1_795_000_000,
            &body,
        ));
    });
    // The sanitiser's worst cases: a long run of `&` (each one used to search the rest of the
    // input for a `;`), and many close tags that match no open element (each one used to walk
    // the whole stack of open elements).
    let ampersands = "&".repeat(100_000);
    measure_rounds(
        "html::sanitize, 100,000 '&'",
        HEAVY_WARMUP,
        HEAVY_ROUNDS,
        |_| {
            black_box(radref::html::sanitize(&ampersands));
        },
    );
    let mismatched = "<b></i>".repeat(14_000);
    measure_rounds(
        "html::sanitize, '<b></i>' x 14,000",
        HEAVY_WARMUP,
        HEAVY_ROUNDS,
        |_| {
            black_box(radref::html::sanitize(&mismatched));
        },
    );
    // The longest finding the context route takes: a whole CT report of about 8,000
    // characters, hundreds of distinct words, many of them fuzzed against the index.
    let report = include_str!("../tests/fixtures/long_finding.txt");
    let query =
        radref::context::ContextQuery::new(Some(report.to_string()), None, None, None, None, None)
            .expect("the report is a valid finding");
    measure_rounds(
        "context::rank, 8,000-char finding",
        HEAVY_WARMUP,
        HEAVY_ROUNDS,
        |_| {
            black_box(radref::context::rank(&KNOWLEDGE, &query));
        },
    );
    // The worst case of the same size: 8,000 characters of words the index does not know,
    // each a candidate for a fuzzy walk.
    // Letters only, 9 to 12 of them, so each word is fuzzed at distance 2.
    let mut seed = 0x2545_f491_u32;
    let mut letter = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        char::from(b'a' + (seed % 26) as u8)
    };
    let gibberish: String = (0..1_000u32)
        .map(|i| {
            let mut word: String = (0..9 + i % 4).map(|_| letter()).collect();
            word.push(' ');
            word
        })
        .collect::<String>()
        .chars()
        .take(8_000)
        .collect();
    let unknown = radref::context::ContextQuery::new(Some(gibberish), None, None, None, None, None)
        .expect("a valid finding");
    measure_rounds(
        "context::rank, 8,000 chars of unknown words",
        HEAVY_WARMUP,
        HEAVY_ROUNDS,
        |_| {
            black_box(radref::context::rank(&KNOWLEDGE, &unknown));
        },
    );
    measure_rounds(
        "context 8,000-char finding",
        HEAVY_WARMUP,
        HEAVY_ROUNDS,
        |_| {
            black_box(serde_json::to_vec(&radref::context::ground(&KNOWLEDGE, &query)).ok());
        },
    );
    // `make bench` with BENCH_SKIP_CONTEXT=1 leaves grounding whole reports out (here and
    // in workerd); empty counts as unset, as in scripts/bench.sh.
    if std::env::var_os("BENCH_SKIP_CONTEXT").is_none_or(|v| v.is_empty()) {
        reports(&app, &services);
    }
}

/// Grounding of whole pasted reports, the length series of `benches/reports` that the HTTP
/// benchmark also sends (`benches/ground.lua`): each file is one report, its name sorting it
/// by length. Per report, the median of each part of the operation, so the growth with the
/// text and where the time goes can be read off one row:
/// - rank: reading the report (sections, findings, assertions) and choosing the systems;
/// - ground: the typed answer (`context::ground`: rank plus each system's cited lines and
///   evaluation);
/// - JSON: the typed answer written as the HTTP route's JSON (`ground` plus `serde_json`);
/// - markdown: `context::markdown` alone, on an answer made beforehand;
/// - `POST /mcp`: the whole `radref_ground` tool call through `app::handle`, as the worker
///   runs it (JSON-RPC read, ground, JSON value, markdown, the reply written).
///
/// A report grounds at most `context::findings::MAX_FINDINGS` findings; those past it are
/// counted, not ranked, so the cost per character falls once a report has more (the
/// "findings" column: present and possible findings grounded, and + counted only).
fn reports(app: &App, services: &radref::host::HostServices) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/reports");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("benches/reports")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    println!();
    println!(
        "grounding whole reports (benches/reports): median ms per call ({REPORT_ROUNDS} calls \
         after {REPORT_WARMUP} warm-up calls per cell); per 1,000 characters of the report"
    );
    println!(
        "| report | chars | findings | rank | ground | JSON | markdown | POST /mcp | \
         JSON ms/1k chars | POST /mcp ms/1k chars | MCP answer bytes |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a report");
        let chars = text.chars().count();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let query =
            radref::context::ContextQuery::new(Some(text.clone()), None, None, None, None, None)
                .unwrap_or_else(|e| panic!("{name} is not a valid finding: {e:?}"));
        let rank = median_ms(|| {
            black_box(radref::context::rank(&KNOWLEDGE, &query));
        });
        let ground = median_ms(|| {
            black_box(radref::context::ground(&KNOWLEDGE, &query));
        });
        let json = median_ms(|| {
            black_box(serde_json::to_vec(&radref::context::ground(&KNOWLEDGE, &query)).ok());
        });
        let answer = radref::context::ground(&KNOWLEDGE, &query);
        let grounded = answer
            .findings
            .iter()
            .filter(|f| f.assertion.grounded())
            .count();
        let findings = match answer.more_findings {
            0 => grounded.to_string(),
            more => format!("{grounded} + {more}"),
        };
        let markdown = median_ms(|| {
            black_box(radref::context::markdown(&answer));
        });
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": "radref_ground", "arguments": { "text": text } },
        })
        .to_string();
        let call = || {
            let request = Request::new(Method::Post, "/mcp")
                .with_header("content-type", "application/json")
                .with_header("accept", "application/json, text/event-stream")
                .with_body(body.as_bytes());
            block_on(handle(app, services, request))
        };
        let response = call();
        assert_eq!(response.status, 200, "{name}");
        let reply: serde_json::Value = serde_json::from_slice(&response.body).expect("JSON-RPC");
        assert_eq!(reply["result"]["isError"], false, "{name}: {reply}");
        let answer_bytes = response.body.len();
        let mcp = median_ms(|| {
            black_box(call().body.len());
        });
        let per_k = |ms: f64| ms * 1000.0 / chars as f64;
        println!(
            "| {name} | {chars} | {findings} | {rank:.3} | {ground:.3} | {json:.3} | {markdown:.3} | {mcp:.3} \
             | {:.3} | {:.3} | {answer_bytes} |",
            per_k(json),
            per_k(mcp)
        );
    }
}

const REPORT_ROUNDS: usize = 100;
const REPORT_WARMUP: usize = 5;

/// The median of `REPORT_ROUNDS` calls of `f`, in milliseconds.
fn median_ms(mut f: impl FnMut()) -> f64 {
    for _ in 0..REPORT_WARMUP {
        f();
    }
    let mut times: Vec<Duration> = (0..REPORT_ROUNDS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[REPORT_ROUNDS / 2].as_secs_f64() * 1000.0
}
