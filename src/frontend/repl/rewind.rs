//! `/rewind` (and Esc Esc at an empty prompt): a picker of the session's
//! turns — each prompt and the files it changed — then what goes back:
//! code and conversation, code only, or conversation only. What
//! `hermes rewind` does, on the session this REPL has open.

use std::io::IsTerminal;

use super::context::{Flow, ReplContext, ReplError};
use super::editor::Editor;
use crate::agent::Agent;
use crate::checkpoint::rewind::Plan;
use crate::checkpoint::{turns, Keep};
use crate::frontend::menu::Item;
use crate::util::sanitize::clean;
use crate::util::text::excerpt;

const MODES: [(&str, &str); 3] = [
    ("both", "code and conversation"),
    (
        "code",
        "code only: the files go back, the conversation goes on",
    ),
    (
        "conversation",
        "conversation only: the turns are dropped, the files stay",
    ),
];

/// `/rewind [N] [code|conversation]`.
pub(super) async fn command(
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    args: &str,
) -> Result<Flow, ReplError> {
    let all = match turns::of_session(agent.session().path()) {
        Ok(t) => t,
        Err(e) => {
            errln!("error: {e}");
            return Ok(Flow::Continue);
        }
    };
    if all.is_empty() {
        errln!("nothing to rewind: this session has no turns yet");
        return Ok(Flow::Continue);
    }
    let mut words = args.split_whitespace();
    let Some(n) = words.next() else {
        if std::io::stdin().is_terminal() {
            return Ok(Flow::PickTurn(items(&all, ctx)));
        }
        for item in items(&all, ctx) {
            errln!("  {}  {}", item.value, item.about);
        }
        errln!("/rewind N [code|conversation] goes back to before turn N");
        return Ok(Flow::Continue);
    };
    let Ok(n) = n.parse::<usize>() else {
        errln!("`{n}` is not a turn number; /rewind alone lists them");
        return Ok(Flow::Continue);
    };
    let mode = words.next().unwrap_or("both");
    if !MODES.iter().any(|(m, _)| *m == mode) {
        errln!("`{mode}` is not code or conversation; /rewind N alone puts back both");
        return Ok(Flow::Continue);
    }
    apply(agent, ctx, &all, n, mode).await;
    Ok(Flow::Continue)
}

/// The turns as the picker lists them, the newest first: the prompt and
/// the files it changed.
fn items(all: &[turns::Turn], ctx: &ReplContext<'_>) -> Vec<Item> {
    all.iter()
        .rev()
        .map(|t| {
            let mut paths: Vec<String> = Vec::new();
            for c in &t.changes {
                let p = clean(&crate::util::path::shown_from(&c.path, ctx.cwd));
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
            let files = match paths.len() {
                0 => String::new(),
                1..=3 => format!(" · {}", paths.join(", ")),
                n => format!(" · {}, … ({n} files)", paths[..2].join(", ")),
            };
            let rewound = if t.conversation_rewound || t.code_rewound {
                " · rewound"
            } else {
                ""
            };
            let prompt = clean(&excerpt(&t.prompt.replace('\n', " "), 50));
            Item::new(t.number.to_string(), format!("{prompt}{files}{rewound}"))
        })
        .collect()
}

/// The picker: a turn, then what of it goes back.
pub(super) async fn pick(
    editor: Editor,
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    items: Vec<Item>,
) -> Result<Editor, ReplError> {
    let (editor, taken) =
        super::pickers::pick(editor, "rewind to before turn", "rewind › ", items, 0).await?;
    let Some(n) = taken.and_then(|t| t.parse::<usize>().ok()) else {
        errln!("nothing rewound");
        return Ok(editor);
    };
    let modes = MODES.iter().map(|(m, what)| Item::new(*m, *what)).collect();
    let title = format!("rewind to before turn {n}");
    let (editor, mode) = super::pickers::pick(editor, &title, "what › ", modes, 0).await?;
    let Some(mode) = mode else {
        errln!("nothing rewound");
        return Ok(editor);
    };
    match turns::of_session(agent.session().path()) {
        Ok(all) => apply(agent, ctx, &all, n, &mode).await,
        Err(e) => errln!("error: {e}"),
    }
    Ok(editor)
}

/// Rewinds to before turn `n` as `mode` says, on the open session: the
/// files put back (never over a change made since), the record appended,
/// the conversation read again from the file.
async fn apply(
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    all: &[turns::Turn],
    n: usize,
    mode: &str,
) {
    let plan = match Plan::new(all, n, mode != "conversation", mode != "code") {
        Ok(p) => p,
        Err(e) => {
            errln!("{e}");
            return;
        }
    };
    let keep = Keep::new(
        crate::session::blob_folder(&ctx.settings.paths.sessions_dir()),
        0,
    );
    let restored = plan.restore(&keep, false);
    if let Err(e) = agent.session().append(&plan.record(&restored)).await {
        errln!("error: {e}");
        return;
    }
    if plan.conversation {
        if let Err(e) = agent.reload().await {
            errln!("error: {e}");
        }
    }
    let shown = |p: &std::path::Path| clean(&crate::util::path::shown_from(p, ctx.cwd));
    for line in plan.report(&restored, shown) {
        errln!("{}", line.replace("--force", "`hermes rewind --force`"));
    }
}
