//! What `/usage` and `/context` say, as text: the REPL prints it, an
//! editor (ACP) gets it as the agent's message.

use crate::agent::Agent;
use crate::frontend::printer::group;

/// How full the window is, in one line.
pub(crate) fn context_line(agent: &Agent) -> String {
    match agent.context_status() {
        (Some(used), Some(window)) => format!(
            "context {:.0}% · {} of {} tokens",
            used as f64 * 100.0 / window as f64,
            group(used),
            group(window)
        ),
        (None, Some(window)) => format!("context window {} tokens", group(window)),
        (_, None) => format!(
            "context window of {} unknown (set providers.NAME.context_window)",
            agent.model()
        ),
    }
}

/// `/usage`: requests and tokens so far, and how full the window is.
pub(crate) fn usage(agent: &Agent) -> String {
    let u = agent.usage_totals();
    format!(
        "{} model request(s) · {} tokens in ({} read from the cache, {} written to it) · {} \
         out\n{}",
        u.requests,
        u.prompt_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        u.completion_tokens,
        context_line(agent)
    )
}

/// `/context`: what the next request carries, by part.
pub(crate) fn context(agent: &Agent) -> String {
    let parts = agent.context_parts();
    let (bytes, tokens) = parts
        .iter()
        .fold((0, 0), |(b, t), (_, pb, pt)| (b + pb, t + pt));
    let mut out =
        String::from("the next request carries (tokens estimated at the provider's last count):\n");
    for (name, b, t) in &parts {
        out.push_str(&format!(
            "  {name:<40} {:>9} bytes {:>8} tokens\n",
            group(*b),
            group(*t)
        ));
    }
    out.push_str(&format!(
        "  {:<40} {:>9} bytes {:>8} tokens\n{}",
        "total",
        group(bytes),
        group(tokens),
        context_line(agent)
    ));
    out
}
