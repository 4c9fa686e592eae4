//! What the fake recorded, as a provider's prompt cache sees it: each
//! request's body with Anthropic's moving cache marks taken out (each marks
//! the newest block of its request and is not part of the prefix the cache
//! compares), and where a request stops starting with the one before it.

use super::fake_provider::Recorded;
use super::TestEnv;

/// Each request's body without Anthropic's cache marks.
pub fn bodies(reqs: &[Recorded]) -> Vec<String> {
    reqs.iter()
        .map(|r| {
            r.body_str()
                .replace(r#""cache_control":{"type":"ephemeral"},"#, "")
        })
        .collect()
}

/// Every request that does not start with the request before it (less its
/// closing `]}`): the points where the prompt cache starts over, each
/// described by where the two differ.
pub fn prefix_breaks(reqs: &[Recorded]) -> Vec<String> {
    let b = bodies(reqs);
    let mut breaks = Vec::new();
    for (i, p) in b.windows(2).enumerate() {
        let stem = p[0].strip_suffix("]}").unwrap_or(&p[0]);
        if p[1].starts_with(stem) {
            continue;
        }
        let at = stem
            .bytes()
            .zip(p[1].bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let show = |t: &str| {
            t.get(at.saturating_sub(80)..(at + 120).min(t.len()))
                .unwrap_or("")
                .to_string()
        };
        breaks.push(format!(
            "request {} does not start with request {i}; at byte {at}:\n  before: …{}\n  after:  …{}",
            i + 1,
            show(stem),
            show(&p[1])
        ));
    }
    breaks
}

/// Each request's body, less its closing `]}`, starts the next one: the
/// same model, tools and messages, then more messages.
#[track_caller]
pub fn assert_each_request_extends_the_previous(env: &TestEnv) {
    let reqs = env.fake.requests();
    assert!(reqs.len() >= 2, "{} requests", reqs.len());
    for (i, r) in reqs.iter().enumerate() {
        assert!(
            r.body_str().ends_with("]}"),
            "request {i} does not end with its messages"
        );
    }
    if let Some(first) = prefix_breaks(&reqs).first() {
        panic!("{first}");
    }
}
