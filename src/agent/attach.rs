//! What the user brings into a message from outside the conversation:
//! `@path` (a local file, or a folder's listing), `@server:uri` (a server's
//! resource), a pasted image path, and a server's prompt run as
//! `/server:prompt ARGS`. What is attached is appended to the message as
//! text, an image as an image of the message with a line where it went, so
//! the session file holds exactly what the model was sent and `--continue`
//! replays it.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use base64::Engine;

use super::Agent;
use crate::mcp::{CachedPrompt, CachedResource, FetchError};
use crate::model::Image;
use crate::util::text::byte_size;

/// Entries a folder's listing names, at most.
const MAX_LISTED: usize = 200;

/// What the servers offer the user, for the REPL's commands and completion.
#[derive(Debug, Clone, Default)]
pub(crate) struct Offers {
    /// (server, prompt) for every prompt of every server.
    pub prompts: Vec<(String, CachedPrompt)>,
    /// (server, resource).
    pub resources: Vec<(String, CachedResource)>,
    /// Every configured server's name (a mention of one is a resource's).
    pub servers: Vec<String>,
    /// The servers with no catalog yet: what they offer is not known.
    pub unlisted: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum AttachError {
    #[error("cannot attach {mention}: {detail}")]
    File { mention: String, detail: String },
    #[error("cannot attach {mention}: {source}")]
    Resource {
        mention: String,
        #[source]
        source: FetchError,
    },
}

/// A message with its mentions attached, what was attached (mention,
/// bytes), and the mentions left as typed (neither a file here nor a
/// server's), to tell the user.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attached {
    pub text: String,
    pub attached: Vec<(String, usize)>,
    pub left: Vec<String>,
    /// The images attached, in order, sent with the message.
    pub images: Vec<Image>,
}

impl Agent {
    /// What the configured servers offer, from their catalogs as they stand.
    pub(crate) fn offers(&self) -> Offers {
        let mut o = Offers::default();
        let Some(mcp) = self.tools.mcp_registry() else {
            return o;
        };
        for (server, listed) in mcp.offers() {
            match listed {
                Some((prompts, resources)) => {
                    o.prompts
                        .extend(prompts.into_iter().map(|p| (server.clone(), p)));
                    o.resources
                        .extend(resources.into_iter().map(|r| (server.clone(), r)));
                }
                None => o.unlisted.push(server.clone()),
            }
            o.servers.push(server);
        }
        o
    }

    /// Lists `server` now (starting it if need be, bounded by its start-up
    /// timeout), for a prompt asked of it before its catalog was cached.
    pub(crate) async fn list_server(&self, server: &str) -> Result<(), FetchError> {
        let s = self
            .tools
            .mcp_registry()
            .and_then(|m| m.server(server))
            .ok_or_else(|| FetchError::NoServer(server.to_string()))?;
        s.refresh().await?;
        Ok(())
    }

    /// The prompt `name` of `server`, run with `arguments`, as the text of
    /// a user message.
    pub(crate) async fn run_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        cancel: &CancellationToken,
    ) -> Result<String, FetchError> {
        let s = self
            .tools
            .mcp_registry()
            .and_then(|m| m.server(server))
            .ok_or_else(|| FetchError::NoServer(server.to_string()))?;
        s.prompt(name, arguments, cancel).await
    }

    /// `text` with what the `@` mentions of `typed` name appended, each
    /// once, in the order typed; `text` itself is kept as it is. `typed` is
    /// what the person typed of it (pastes as their placeholders): an `@` in
    /// pasted text, or in text a model, a server or a tool wrote, never
    /// attaches. A file outside `cwd` attaches only when it is among
    /// `outside_allowed` (the person said yes to it); one reached through a
    /// link out of `cwd` never does. `pasted` are the image files the
    /// person pasted as paths (placeholder, path): they attach wherever they
    /// are, the paste being the person's own act. A mention that fails (an
    /// unreadable file, a resource the server refuses, an image too large)
    /// fails the whole message, so nothing is sent half-attached.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn attach_mentions(
        &self,
        text: &str,
        typed: &str,
        pasted: &[(String, PathBuf)],
        cwd: &Path,
        outside_allowed: &[String],
        max_bytes: usize,
        cancel: &CancellationToken,
    ) -> Result<Attached, AttachError> {
        let found = mentions(typed);
        let mut out = text.to_string();
        let mut left = Vec::new();
        let mut attached = Vec::new();
        let mut images = Vec::new();
        for (placeholder, path) in pasted {
            let (mention, pasted, before) = (placeholder.clone(), path.clone(), images.len());
            let found = off_thread(placeholder, move || {
                let real = std::fs::canonicalize(&pasted).unwrap_or(pasted);
                image_file(&mention, &real, before)
            })
            .await?;
            match found {
                Some(image) => {
                    let line = image_line(placeholder, &image);
                    attached.push((placeholder.clone(), line.1));
                    out.push_str(&line.0);
                    images.push(image);
                }
                None => {
                    return Err(AttachError::File {
                        mention: placeholder.clone(),
                        detail: format!(
                            "{} is no longer a PNG, JPEG, GIF or WebP image",
                            path.display()
                        ),
                    })
                }
            }
        }
        if found.is_empty() {
            return Ok(Attached {
                text: out,
                attached,
                left,
                images,
            });
        }
        let servers = self.offers().servers;
        for m in found {
            let target = &m[1..];
            let resource = target
                .split_once(':')
                .filter(|(server, uri)| !uri.is_empty() && servers.iter().any(|s| s == server));
            let (body, about) = if let Some((server, uri)) = resource {
                let s = self.tools.mcp_registry().and_then(|r| r.server(server));
                let Some(s) = s else { continue };
                let body =
                    s.resource(uri, cancel)
                        .await
                        .map_err(|source| AttachError::Resource {
                            mention: m.clone(),
                            source,
                        })?;
                (body, String::new())
            } else {
                let (mention, cwd) = (m.clone(), cwd.to_path_buf());
                let allowed = outside_allowed.contains(&m);
                let before = images.len();
                let read = off_thread(&m, move || {
                    local(&mention, &cwd, allowed, before, max_bytes)
                })
                .await?;
                match read {
                    Local::Missing => {
                        left.push(m);
                        continue;
                    }
                    Local::Listing(l) => (l, " (a folder)".into()),
                    Local::Image(image) => {
                        let (line, bytes) = image_line(&m, &image);
                        attached.push((m.clone(), bytes));
                        out.push_str(&line);
                        images.push(image);
                        continue;
                    }
                    Local::Text(t) => (t, String::new()),
                }
            };
            let body = crate::call::cut_text(body, max_bytes);
            attached.push((m.clone(), body.len()));
            out.push_str(&format!(
                "\n\n<attachment name=\"{m}\"{about}>\n{}\n</attachment>",
                body.trim_end_matches('\n')
            ));
        }
        Ok(Attached {
            text: out,
            attached,
            left,
            images,
        })
    }
}

/// The file at `path` as an image every API takes, when its first bytes
/// say it is one (PNG, JPEG, GIF, WebP); `None` when they don't (it is
/// attached as text, or refused as binary). `before`: the images this
/// message has already.
fn image_file(mention: &str, path: &Path, before: usize) -> Result<Option<Image>, AttachError> {
    let err = |detail: String| AttachError::File {
        mention: mention.to_string(),
        detail,
    };
    let (head, size) = crate::util::inside::read_head(path, 16).map_err(|e| err(e.to_string()))?;
    let Some(media_type) = Image::sniff(&head) else {
        return Ok(None);
    };
    if size as usize > Image::MAX_BYTES {
        return Err(err(format!(
            "{} is {}; the APIs take images up to {} (make it smaller, or crop it)",
            path.display(),
            byte_size(size as usize),
            byte_size(Image::MAX_BYTES)
        )));
    }
    if before >= Image::MAX_PER_MESSAGE {
        return Err(err(format!(
            "a message takes at most {} images",
            Image::MAX_PER_MESSAGE
        )));
    }
    let (bytes, _) =
        crate::util::inside::read_head(path, Image::MAX_BYTES).map_err(|e| err(e.to_string()))?;
    Ok(Some(Image {
        media_type: media_type.to_string(),
        data: base64::engine::general_purpose::STANDARD.encode(&bytes),
    }))
}

/// The line an image leaves in the message's text, and its size in bytes.
fn image_line(mention: &str, image: &Image) -> (String, usize) {
    let bytes = Image::decoded_len(&image.data);
    (
        format!(
            "\n\n<attachment name=\"{mention}\" image=\"{}, {}\"/>",
            image.media_type,
            byte_size(bytes)
        ),
        bytes,
    )
}

/// The `@` mentions in `text`: words that start with `@` (at the start or
/// after white space), trailing punctuation off, each once.
pub(super) fn mentions(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let Some(rest) = word.strip_prefix('@') else {
            continue;
        };
        let rest = rest.trim_end_matches([',', '.', ';', '!', '?', ')', '"', '\'']);
        if rest.is_empty() || rest.starts_with('@') {
            continue;
        }
        let m = format!("@{rest}");
        if !found.contains(&m) {
            found.push(m);
        }
    }
    found
}

fn resolve(cwd: &Path, target: &str) -> PathBuf {
    cwd.join(crate::util::path::expand_home(target))
}

/// Where a mentioned path is: inside the working folder (its real path),
/// outside it as typed (`@/etc/hosts`, `@../notes.md`: the person is asked
/// first), or inside as typed but a link out of it (never attached).
pub(crate) enum Place {
    Inside(PathBuf),
    Outside(PathBuf),
    LinkOut(String),
}

pub(crate) fn where_it_is(cwd: &Path, path: &Path) -> Place {
    let real_cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let as_typed = crate::util::path::normalize(path);
    let typed_inside = as_typed.starts_with(cwd) || as_typed.starts_with(&real_cwd);
    match crate::util::inside::resolve(cwd, path) {
        Ok(real) => Place::Inside(real),
        Err(e @ crate::util::inside::Refused::Outside { .. }) if typed_inside => {
            Place::LinkOut(e.to_string())
        }
        Err(crate::util::inside::Refused::Outside { real, .. }) => Place::Outside(real),
        Err(e) => Place::LinkOut(e.to_string()),
    }
}

/// The mentions of `typed` that name files outside `cwd` as typed — what
/// the person is asked about before the message is sent.
pub(crate) fn outside_mentions(typed: &str, cwd: &Path) -> Vec<(String, PathBuf)> {
    mentions(typed)
        .into_iter()
        .filter_map(|m| {
            let path = resolve(cwd, &m[1..]);
            std::fs::metadata(&path).ok()?;
            match where_it_is(cwd, &path) {
                Place::Outside(real) => Some((m, real)),
                _ => None,
            }
        })
        .collect()
}

/// `f` on the blocking pool: files are read off the runtime thread, so a
/// slow disk holds nothing else up.
async fn off_thread<T: Send + 'static>(
    mention: &str,
    f: impl FnOnce() -> Result<T, AttachError> + Send + 'static,
) -> Result<T, AttachError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| AttachError::File {
            mention: mention.to_string(),
            detail: e.to_string(),
        })?
}

/// What a mention of a local path brings.
enum Local {
    /// Nothing there: the mention stays as typed.
    Missing,
    Listing(String),
    Image(Image),
    /// A text file's numbered lines, as `read_file` gives them.
    Text(String),
}

/// A mention of a local path, read on the blocking pool: a folder's
/// listing, an image, or a text file through the built-in reader — the
/// one reader of files for the model — within `max` bytes. A path outside
/// the working folder needs `allowed`; a link out of it never goes.
fn local(
    mention: &str,
    cwd: &Path,
    allowed: bool,
    before: usize,
    max: usize,
) -> Result<Local, AttachError> {
    let target = &mention[1..];
    let path = resolve(cwd, target);
    let err = |detail: String| AttachError::File {
        mention: mention.to_string(),
        detail,
    };
    let Ok(meta) = std::fs::metadata(&path) else {
        return Ok(Local::Missing);
    };
    let real = match where_it_is(cwd, &path) {
        Place::Inside(real) => real,
        Place::Outside(real) if allowed => real,
        Place::Outside(_) => {
            return Err(err(format!(
                "{} is outside the working folder, and attaching it was not allowed",
                path.display()
            )))
        }
        Place::LinkOut(why) => return Err(err(why)),
    };
    if meta.is_dir() {
        return listing(mention, &real).map(Local::Listing);
    }
    if let Some(image) = image_file(mention, &real, before)? {
        return Ok(Local::Image(image));
    }
    // Room for the line that says how to read on.
    crate::tools::read_attached(&real, target, max.saturating_sub(200))
        .map(Local::Text)
        .map_err(|e| err(e.for_person(target)))
}

/// A folder as its sorted entries, folders with a trailing `/`.
fn listing(mention: &str, path: &Path) -> Result<String, AttachError> {
    let read = std::fs::read_dir(path).map_err(|e| AttachError::File {
        mention: mention.to_string(),
        detail: e.to_string(),
    })?;
    let mut names: Vec<String> = read
        .flatten()
        .map(|e| {
            let dir = e.file_type().is_ok_and(|t| t.is_dir());
            format!(
                "{}{}",
                e.file_name().to_string_lossy(),
                if dir { "/" } else { "" }
            )
        })
        .collect();
    names.sort();
    let more = names.len().saturating_sub(MAX_LISTED);
    names.truncate(MAX_LISTED);
    if more > 0 {
        names.push(format!("(+{more} more)"));
    }
    Ok(names.join("\n"))
}

/// A prompt's arguments from what was typed after its command: `NAME=VALUE`
/// words by name, the other words in the order the prompt declares its
/// arguments (the last one taking the rest of the line). Returns the bound
/// arguments and the required ones still missing.
pub(crate) fn bind_arguments<'p>(
    prompt: &'p CachedPrompt,
    typed: &str,
) -> (
    serde_json::Map<String, serde_json::Value>,
    Vec<&'p crate::mcp::PromptArgument>,
) {
    let mut bound = serde_json::Map::new();
    let mut positional: Vec<&str> = Vec::new();
    for word in typed.split_whitespace() {
        match word.split_once('=') {
            Some((k, v)) if prompt.arguments.iter().any(|a| a.name == k) => {
                bound.insert(k.to_string(), v.into());
            }
            _ => positional.push(word),
        }
    }
    let free: Vec<&crate::mcp::PromptArgument> = prompt
        .arguments
        .iter()
        .filter(|a| !bound.contains_key(&a.name))
        .collect();
    let mut words = positional.into_iter();
    for (i, a) in free.iter().enumerate() {
        let value = if i + 1 == free.len() {
            words.by_ref().collect::<Vec<_>>().join(" ")
        } else {
            words.next().unwrap_or_default().to_string()
        };
        if !value.is_empty() {
            bound.insert(a.name.clone(), value.into());
        }
    }
    let missing = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !bound.contains_key(&a.name))
        .collect();
    (bound, missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::PromptArgument;

    fn arg(name: &str, required: bool) -> PromptArgument {
        PromptArgument {
            name: name.into(),
            description: String::new(),
            required,
        }
    }

    #[test]
    fn mentions_are_words_that_start_with_an_at_each_once() {
        assert_eq!(
            mentions("see @src/main.rs, and @everything:demo://x/y. mail a@b.c or @ alone @@x @src/main.rs"),
            vec!["@src/main.rs", "@everything:demo://x/y"]
        );
        assert!(mentions("no mentions here").is_empty());
    }

    #[test]
    fn arguments_bind_by_name_then_in_order_the_last_taking_the_rest() {
        let p = CachedPrompt {
            name: "weather".into(),
            description: String::new(),
            arguments: vec![arg("city", true), arg("state", false), arg("note", false)],
        };
        let (b, missing) = bind_arguments(&p, "state=CA Los Angeles in the rain");
        assert_eq!(b["state"], "CA");
        assert_eq!(b["city"], "Los");
        assert_eq!(b["note"], "Angeles in the rain");
        assert!(missing.is_empty());
        let (b, missing) = bind_arguments(&p, "state=CA");
        assert_eq!(b.len(), 1);
        assert_eq!(
            missing.iter().map(|a| &a.name).collect::<Vec<_>>(),
            ["city"]
        );
        // A word with `=` that names no argument is a value.
        let (b, _) = bind_arguments(&p, "a=b");
        assert_eq!(b["city"], "a=b");
    }

    #[test]
    fn a_binary_file_is_refused_a_folder_listed_and_text_read_as_read_file_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("blob.bin"), [0u8, 1, 2, 3]).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let lines: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("big.log"), lines).unwrap();
        let Err(e) = local("@blob.bin", dir.path(), false, 0, 1000) else {
            panic!("a binary file was attached")
        };
        assert!(e.to_string().contains("binary file (4 bytes)"), "{e}");
        assert!(
            matches!(local("@.", dir.path(), false, 0, 1000), Ok(Local::Listing(l)) if l == "big.log\nblob.bin\nsub/")
        );
        let Ok(Local::Text(text)) = local("@big.log", dir.path(), false, 0, 2000) else {
            panic!("the log was not read")
        };
        assert!(text.starts_with("     1\tline 1\n"), "{text}");
        assert!(text.len() < 2000, "{} bytes", text.len());
        assert!(
            text.contains(" of 5000 of big.log; read on with offset="),
            "{text}"
        );
        assert!(matches!(
            local("@gone.md", dir.path(), false, 0, 1000),
            Ok(Local::Missing)
        ));
    }
}
