//! Call ids an API would refuse, issued by a server that speaks it (a
//! compatible endpoint, a proxy in front of another model): Kimi-style
//! `functions.read_file:0`, one past 40 characters, one not ASCII (issue
//! 53). The session keeps the model's own id; every request maps it, the
//! call and its result alike, so they still pair — on every API, for a
//! single call and a split batch, across `--continue`. The strict fakes
//! refuse the raw ids in a replayed history with the real errors.

use serde_json::json;

use crate::support::calls::batch;
use crate::support::wire::assert_each_request_extends_the_previous;
use crate::support::{records, Api, Block, Reply, Stop, TestEnv, Turn};

/// The odd ids, as servers send them.
const IDS: [&str; 3] = [
    "functions.read_file:0",
    "call_00_7bJmQ2xLz9WpVt4Hn6KcR3dY8sFgA1uEo5iNbTq",
    "呼び出し-1",
];

fn env_for(api: Api) -> TestEnv {
    let env = TestEnv::with_api(api);
    env.write_config("[tools]\nbuiltin = [\"read_file\"]\ndefer = \"never\"\n");
    std::fs::write(env.cwd.path().join("notes.txt"), "alpha\n").unwrap();
    env
}

fn odd_call(id: &str, name: &str, args: &str) -> Reply {
    Reply::from_turn(Turn::new(
        vec![Block::Tool {
            id: id.into(),
            name: name.into(),
            args: args.into(),
        }],
        Stop::ToolUse,
    ))
}

/// A session of three turns, one call under each odd id, the session
/// continued twice: six requests.
fn three_turns_of_odd_calls(env: &TestEnv) {
    for id in IDS {
        env.fake
            .push(odd_call(id, "read_file", r#"{"path":"notes.txt"}"#));
        env.fake.push(Reply::text("read it"));
    }
    env.run(&["-q", "read"]).ok();
    env.run(&["--continue", "-q", "again"]).ok();
    env.run(&["--continue", "-q", "and again"]).ok();
}

/// One call under each odd id, the session continued twice: no request
/// refused, each extends the one before byte for byte, and the session
/// file keeps the ids as the server sent them.
fn single(api: Api) {
    let env = env_for(api);
    three_turns_of_odd_calls(&env);
    env.fake.push(Reply::text("still fine"));
    env.run(&["--continue", "-q", "more"]).ok();
    assert_eq!(env.fake.requests().len(), 7, "no request refused");
    assert_each_request_extends_the_previous(&env);
    let kept = crate::support::tool_call_ids(&records(&env.only_session()));
    assert_eq!(kept, IDS, "the session keeps the model's ids");
}

/// The API a session moves to in [`switched`]: the next one round.
fn other(api: Api) -> Api {
    match api {
        Api::OpenAi => Api::Anthropic,
        Api::Anthropic => Api::Gemini,
        Api::Gemini => Api::Bedrock,
        Api::Bedrock => Api::Responses,
        Api::Responses => Api::OpenAi,
    }
}

/// A session made of odd ids on `api`, continued on another API and then
/// back: every request taken (the strict fakes refuse an id their API would
/// and an unpaired result, with the real errors), the session still the
/// model's.
fn switched(api: Api) {
    let env = env_for(api);
    let to = other(api);
    let model = if to == Api::Responses {
        "gpt-5-test"
    } else {
        "test-model"
    };
    let config = std::fs::read_to_string(env.config_path()).unwrap();
    let table = format!(
        "\n[providers.other]\n{}model = \"{model}\"\nmax_retries = 0\n",
        env.provider_keys(to)
    );
    std::fs::write(env.config_path(), config + &table).unwrap();
    three_turns_of_odd_calls(&env);
    env.fake.push(Reply::text("on the other API"));
    let moved = env.run(&["--provider", "other", "--continue", "-q", "move"]);
    moved.ok();
    crate::assert_contains!(moved.stdout, "on the other API");
    env.fake.push(Reply::text("back"));
    let back = env.run(&["--continue", "-q", "back"]);
    back.ok();
    crate::assert_contains!(back.stdout, "back");
    assert_eq!(env.fake.requests().len(), 8, "no request refused");
    let kept = crate::support::tool_call_ids(&records(&env.only_session()));
    assert_eq!(kept, IDS, "the session keeps the model's ids");
}

/// A `tool_call` batch under an odd id, split: its entries' ids are
/// hermes' own and legal; the history replays across `--continue`.
fn split(api: Api) {
    let env = TestEnv::with_api(api);
    env.write_config("[tools]\nbuiltin = [\"read_file\"]\ndefer = \"always\"\n");
    std::fs::write(env.cwd.path().join("notes.txt"), "alpha\n").unwrap();
    let entries = batch(&[
        ("read_file", json!({"path": "notes.txt"})),
        ("read_file", json!({"path": "notes.txt", "offset": 1})),
    ]);
    env.fake.push(odd_call(IDS[0], "tool_call", &entries));
    env.fake.push(Reply::text("read both"));
    env.fake.push(Reply::text("continued"));
    env.run(&["-q", "read"]).ok();
    env.run(&["--continue", "-q", "again"]).ok();
    assert_eq!(env.fake.requests().len(), 3, "no request refused");
    assert_each_request_extends_the_previous(&env);
}

macro_rules! every_api {
    ($name:ident, $body:ident) => {
        mod $name {
            use super::*;
            #[test]
            fn openai() {
                $body(Api::OpenAi)
            }
            #[test]
            fn anthropic() {
                $body(Api::Anthropic)
            }
            #[test]
            fn bedrock() {
                $body(Api::Bedrock)
            }
            #[test]
            fn gemini() {
                $body(Api::Gemini)
            }
            #[test]
            fn responses() {
                $body(Api::Responses)
            }
        }
    };
}

every_api!(odd_ids_pair_with_their_results_across_continue_on, single);
every_api!(an_odd_batch_id_splits_and_replays_on, split);
every_api!(
    odd_ids_survive_a_switch_to_another_api_and_back_on,
    switched
);
