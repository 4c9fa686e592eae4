//! What a line sends besides itself: a server's prompt with the arguments
//! it still needs asked for, the files outside the folder it mentions
//! asked about, its `@` mentions and pasted images attached.

use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

use super::context::{ReplContext, ReplError};
use super::editor::{next_line, Editor};
use super::turn::cancel_on_ctrl_c;
use crate::agent::Agent;
use crate::frontend::offers::PromptAsked;
use crate::frontend::printer::group;
use crate::util::text::excerpt;

/// The arguments a prompt still needs, asked one by one on the prompt
/// line; an empty answer to a required one gives the prompt up.
pub(super) async fn fill_prompt(
    mut editor: Editor,
    queued: &Mutex<Vec<String>>,
    mut asked: PromptAsked,
) -> Result<(Editor, Option<PromptAsked>), ReplError> {
    let missing = std::mem::take(&mut asked.missing);
    for (name, description) in missing {
        let label = if description.is_empty() {
            format!("  {name}: ")
        } else {
            format!("  {name} ({}): ", excerpt(&description, 60))
        };
        let (ed, answer) = next_line(editor, queued, label, None).await?;
        editor = ed;
        match answer.map(|a| a.trim().to_string()) {
            Ok(a) if !a.is_empty() => {
                asked.arguments.insert(name, a.into());
            }
            _ => {
                errln!("{name} is required; the prompt was not sent");
                return Ok((editor, None));
            }
        }
    }
    Ok((editor, Some(asked)))
}

/// A server's prompt, fetched (Ctrl-C stops the wait): its text to send,
/// shown first, or `None` after saying why not.
pub(super) async fn run_prompt(
    agent: &Agent,
    asked: PromptAsked,
    stop: &CancellationToken,
) -> Option<String> {
    let cancel = stop.child_token();
    let on_ctrl_c = cancel_on_ctrl_c(&cancel);
    let got = agent
        .run_prompt(&asked.server, &asked.prompt, asked.arguments, &cancel)
        .await;
    on_ctrl_c.abort();
    match got {
        Ok(text) if text.trim().is_empty() => {
            errln!(
                "prompt {} of server `{}` is empty; nothing was sent",
                asked.prompt,
                asked.server
            );
            None
        }
        Ok(text) => {
            errln!("› {}", crate::util::sanitize::clean(&excerpt(&text, 300)));
            Some(text)
        }
        Err(e) => {
            errln!("error: {e}");
            None
        }
    }
}

/// The files outside the working folder that `typed` mentions, each asked
/// about on the terminal (never answered by a line typed ahead): those the
/// person allows.
pub(super) async fn confirm_outside(
    mut editor: Editor,
    typed: &str,
    cwd: &std::path::Path,
) -> Result<(Editor, Vec<String>), ReplError> {
    let mut allowed = Vec::new();
    let none = Mutex::new(Vec::new());
    for (mention, real) in crate::agent::outside_mentions(typed, cwd) {
        let question = format!(
            "  attach {}, outside the working folder? [y/N] ",
            crate::util::sanitize::clean(&real.display().to_string())
        );
        let (ed, answer) = next_line(editor, &none, question, None).await?;
        editor = ed;
        if answer.is_ok_and(|a| matches!(a.trim(), "y" | "Y" | "yes")) {
            allowed.push(mention);
        }
    }
    Ok((editor, allowed))
}

/// The typed message with its `@` mentions and pasted images attached,
/// each named on the screen; `Err` after saying why one could not be.
pub(super) async fn attach(
    agent: &Agent,
    text: &str,
    typed: &str,
    pasted: &[(String, std::path::PathBuf)],
    allowed: &[String],
    ctx: &ReplContext<'_>,
) -> Result<(String, Vec<crate::model::Image>), ()> {
    let cancel = ctx.stop.child_token();
    let on_ctrl_c = cancel_on_ctrl_c(&cancel);
    let limit = ctx.settings.limits.tool_output_bytes;
    let got = agent
        .attach_mentions(text, typed, pasted, ctx.cwd, allowed, limit, &cancel)
        .await;
    on_ctrl_c.abort();
    match got {
        Ok(a) => {
            for (m, bytes) in &a.attached {
                errln!("  attached {m} ({} bytes)", group(*bytes as u64));
            }
            for m in &a.left {
                errln!("  {m} is neither a file here nor a server's resource; sent as typed");
            }
            Ok((a.text, a.images))
        }
        Err(e) => {
            errln!("error: {e}; the message was not sent (it is back in the editor)");
            Err(())
        }
    }
}
