//! A server's form (elicitation), filled in the REPL one field at a time.
//! The core puts the form (`form_asked`) and waits for its answer on the
//! answers channel approvals use; here each field is asked with its title,
//! description and default, the next line typed is its value (an empty line
//! takes the default), checked against the field's type, format, range and
//! choices and asked again until it fits. `!decline` or `!cancel` ends the
//! form with that answer. Lines come through the type-ahead reader, as
//! approval answers do.

use std::sync::{Arc, Mutex};

use serde_json::Map;
use tokio::sync::oneshot;

use crate::mcp::Field;
use crate::policy::{Answer, Answers, FormAnswer};

/// Where the type-ahead reader sends the next line when a form's field
/// waits for one.
pub(crate) type AnswerSlot = Arc<Mutex<Option<oneshot::Sender<String>>>>;

/// Fills in the terminal the forms the core puts, and answers them.
#[derive(Clone)]
pub(crate) struct TerminalForms {
    pub(crate) slot: AnswerSlot,
    pub(crate) answers: Answers,
}

/// A form as `form_asked` puts it.
pub(crate) struct Asked<'a> {
    pub(crate) id: &'a str,
    pub(crate) server: &'a str,
    pub(crate) message: &'a str,
    pub(crate) fields: &'a [Field],
}

impl TerminalForms {
    /// Starts filling `form`; its answer goes on the answers channel once
    /// the last field is in (or the form is declined, cancelled, or its
    /// turn ends).
    pub(crate) fn fill(&self, form: Asked<'_>) {
        let me = self.clone();
        let (id, server) = (form.id.to_string(), form.server.to_string());
        let (message, fields) = (form.message.to_string(), form.fields.to_vec());
        tokio::spawn(async move {
            let answer = me.ask(&server, &message, &fields).await;
            // The form may have gone meanwhile (waited too long).
            let _ = me.answers.answer(&id, Answer::Form(answer));
        });
    }

    async fn ask(&self, server: &str, message: &str, fields: &[Field]) -> FormAnswer {
        // The server writes every word of the form: said plainly, so a
        // form titled "hermes needs your API key" reads as what it is.
        show(format!(
            "? server `{server}` asks (this form is the server's, not hermes'): {message}\n  \
             an empty line takes the default · !decline · !cancel"
        ));
        let mut content = Map::new();
        for field in fields {
            let mut prompt = field.prompt();
            if field.secret {
                prompt.push_str(&format!(
                    " [looks secret: not shown as you type; it goes to server `{server}`]"
                ));
            }
            show(prompt);
            super::live::hide_input(field.secret);
            let _shown_again = ShowAgain;
            loop {
                let (tx, rx) = oneshot::channel();
                if let Ok(mut slot) = self.slot.lock() {
                    *slot = Some(tx);
                }
                // The turn ended (a stop): nobody will answer.
                let Ok(line) = rx.await else {
                    return FormAnswer::Cancel;
                };
                match line.trim() {
                    "!decline" => return FormAnswer::Decline,
                    "!cancel" => return FormAnswer::Cancel,
                    _ => {}
                }
                match field.parse(line.trim()) {
                    Ok(Some(v)) => {
                        content.insert(field.name.clone(), v);
                        break;
                    }
                    Ok(None) => break,
                    Err(why) => show(format!("  {why}; again:")),
                }
            }
        }
        FormAnswer::Accept(content)
    }
}

/// What is typed is shown again once a secret field is answered, or the
/// form ends.
struct ShowAgain;

impl Drop for ShowAgain {
    fn drop(&mut self) {
        super::live::hide_input(false);
    }
}

/// Lines of a form, above whatever is drawn live.
fn show(text: String) {
    for line in text.lines() {
        super::live::above_with(|| crate::util::stderr::decided(line));
    }
}
