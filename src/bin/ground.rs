//! `ground FILE [json|markdown] [compact|full] [MAX_TOKENS] [verified]`: grounds a report from a file (or `-` for
//! standard input) on the host, as `POST /api/v1/context` would, and prints the answer. For
//! reading the grounding of a report while curating the corpus's grounding knowledge.
//! With `RADREF_GROUND_TIMES=N` it also prints the median time of N more groundings.

use radref::context::{self, ContextQuery};
use radref::knowledge::KNOWLEDGE;
use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: ground FILE|- [json|markdown] [compact|full] [MAX_TOKENS] [true|false]");
        return ExitCode::from(2);
    };
    let mut text = String::new();
    let read = if file == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(file).map(|t| text = t)
    };
    if let Err(e) = read {
        eprintln!("ground: {file}: {e}");
        return ExitCode::FAILURE;
    }
    let format = args.get(1).cloned();
    let detail = args.get(2).cloned();
    let max_tokens = args.get(3).and_then(|n| n.parse().ok());
    let verified = args.get(4).map(|v| v == "true");
    let query = ContextQuery::new(Some(text), None, None, None, format, verified)
        .and_then(|q| q.options(detail, max_tokens));
    let query = match query {
        Ok(q) => q,
        Err(e) => {
            eprintln!("ground: {e:?}");
            return ExitCode::from(2);
        }
    };
    let answer = context::answer::ground(&KNOWLEDGE, &query);
    // RADREF_GROUND_TIMES=N: ground N more times and print the median on standard error.
    if let Some(n) = std::env::var("RADREF_GROUND_TIMES")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        let mut times: Vec<f64> = (0..n)
            .map(|_| {
                let start = std::time::Instant::now();
                std::hint::black_box(context::answer::ground(&KNOWLEDGE, &query));
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        eprintln!("ground: median {:.3} ms over {n} calls", times[n / 2]);
    }
    match query.format {
        context::Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&answer).unwrap_or_default()
        ),
        context::Format::Markdown => print!("{}", context::markdown(&answer)),
    }
    ExitCode::SUCCESS
}
