//! Two versions of one guideline through the whole app function: the diff (JSON and
//! markdown), the re-score of one input set and of a batch, and each refusal.

use crate::app::handle;
use crate::config::Config;
use crate::host::{block_on, HostServices};
use crate::http::{Method, Request, Response};
use crate::services::App;
use serde_json::{json, Value};

fn send(request: Request) -> Response {
    let app = App::new(Config {
        corpus_rate_limit: u32::MAX,
        ..Config::default()
    });
    block_on(handle(&app, &HostServices::default(), request))
}

fn get(target: &str) -> Response {
    send(Request::new(Method::Get, target))
}

fn post(target: &str, body: &Value) -> Response {
    send(
        Request::new(Method::Post, target)
            .with_header("content-type", "application/json")
            .with_body(body.to_string().into_bytes()),
    )
}

fn json_of(r: &Response) -> Value {
    serde_json::from_slice(&r.body).unwrap()
}

#[test]
fn print_diff() {
    let r = get("/api/v1/systems/pi-rads-v2-2015/diff/pi-rads-v2-1-2019");
    println!("{}", serde_json::to_string_pretty(&json_of(&r)).unwrap());
    let r = get("/api/v1/systems/pi-rads-v2-2015/diff/pi-rads-v2-1-2019?format=markdown");
    println!("{}", String::from_utf8_lossy(&r.body));
    let r = post("/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019", &json!({"inputs": [{"t2w_tz_score": "2", "dwi_score": "4"}, {"t2w_tz_score": "2", "dwi_score": "5", "dce": "positive"}, {"t2w_tz_score": "2"}, {"t2w_tz_score": "9"}]}));
    println!("{}", serde_json::to_string_pretty(&json_of(&r)).unwrap());
}

#[test]
fn parse_logic() {
    let bytes = crate::corpus::compiled::detail("pi-rads-v2-2015").unwrap();
    let r: Result<crate::corpus::compiled::Logic, _> = serde_json::from_slice(bytes);
    println!("{:?}", r.err());
}
