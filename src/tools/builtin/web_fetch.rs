//! `web_fetch`: a page for the model, fetched by hermes itself (outside
//! the sandbox) under the one `[network]` policy (`net::Fetcher`). Asked
//! per domain: a host `[network] allow` names runs without a question, an
//! answer for the session covers its domain; a URL that carries what looks
//! like a key is asked every time, even under `--yolo`, and refused when
//! nobody answers. Runs in plan mode (it changes nothing that stays).

use std::sync::Arc;

use base64::Engine;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::background::Notice;
use super::context::{arg_str, Context};
use crate::call::ToolOutput;
use crate::model::{Image, ToolSpec};
use crate::net::{Fetched, Fetcher, Format, Kind, Page};
use crate::policy::Hints;
use crate::tools::{OnStart, Tool};

pub(crate) const NAME: &str = "web_fetch";

pub(crate) struct WebFetch {
    pub(crate) ctx: Arc<Context>,
    pub(crate) fetcher: Fetcher,
}

impl Tool for WebFetch {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: NAME.into(),
            description: "GET an http(s) URL: HTML as Markdown (or `format` text/raw), JSON \
                and text as is, images as images. Local addresses are refused."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "url": {"type": "string"},
                    "format": {"enum": ["markdown", "text", "raw"]},
                    "max_bytes": {"type": "integer", "minimum": 1}
                },
                "required": ["url"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, args: &Value) -> Hints {
        // A URL that does not parse, or a host denied, fails with nothing
        // sent: there is nothing to ask.
        let Ok(url) = crate::net::parse(arg_str(args, "url")) else {
            return read_only();
        };
        let Some((host, port)) = crate::net::host_port(&url) else {
            return read_only();
        };
        let network = self.fetcher.network();
        if network.denied(&host, port).is_some() {
            return read_only();
        }
        if crate::net::secret_in(&url).is_some() {
            return Hints {
                always_ask: Some("the URL may carry a key"),
                even_under_yolo: true,
                investigates: true,
                ..Hints::default()
            };
        }
        if network.allowed(&host, port) {
            return read_only();
        }
        Hints {
            investigates: true,
            ..Hints::default()
        }
    }

    fn call<'a>(
        &'a self,
        args: Value,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            on_start();
            let format = match Format::parse(args["format"].as_str()) {
                Ok(f) => f,
                Err(e) => return ToolOutput::error(e),
            };
            let url = match crate::net::parse(arg_str(&args, "url")) {
                Ok(u) => u,
                Err(e) => return ToolOutput::error(e.to_string()),
            };
            let max = self.fetcher.bound(args["max_bytes"].as_u64());
            match self.fetcher.fetch(url, max, cancel).await {
                Ok(Fetched::Page(page)) => {
                    self.told(&page);
                    answer(&page, format, self.ctx.output_limit)
                }
                Ok(Fetched::Elsewhere { from, to, status }) => ToolOutput::ok(format!(
                    "{from} redirects ({status}) to {to}, on another host that [network] allow \
                     does not name: not followed. Fetch that URL to follow it."
                )),
                Err(e) => ToolOutput::error(e.to_string()),
            }
        })
    }
}

fn read_only() -> Hints {
    Hints {
        read_only: true,
        ..Hints::default()
    }
}

impl WebFetch {
    /// A fetch as an event: its domain and bytes, for `--json` and the
    /// run's summary.
    fn told(&self, page: &Page) {
        self.ctx.background.notify(Notice::Fetched {
            url: page.url.to_string(),
            domain: crate::net::host_port(&page.url)
                .map(|(h, _)| h)
                .unwrap_or_default(),
            status: page.status,
            bytes: page.received,
        });
    }
}

/// What the model is given of `page`.
fn answer(page: &Page, format: Format, limit: usize) -> ToolOutput {
    let kind = Kind::of(&page.content_type, &page.body);
    let mut head = format!(
        "{} — {} {}, {} bytes",
        page.url,
        page.status,
        if page.content_type.is_empty() {
            "(no content type)"
        } else {
            &page.content_type
        },
        page.body.len()
    );
    match page.cut {
        Some(Some(of)) => head.push_str(&format!(" read of {of} (max_bytes)")),
        Some(None) => head.push_str(" read, the rest not (max_bytes)"),
        None => {}
    }
    if page.unchanged {
        head.push_str(", unchanged since it was last fetched (304)");
    }
    let failed = page.status >= 400;
    if kind == Kind::Image && format != Format::Raw {
        let media = page.content_type.split(';').next().unwrap_or("").trim();
        if !Image::TYPES.contains(&media) || page.cut.is_some() {
            return ToolOutput::error(format!(
                "{head}: an image the model cannot be sent (PNG, JPEG, GIF and WebP whole, \
                 up to {} bytes, are)",
                Image::MAX_BYTES
            ));
        }
        let mut out = ToolOutput::ok(head);
        out.images.push(Image {
            media_type: media.to_string(),
            data: base64::engine::general_purpose::STANDARD.encode(page.body.as_slice()),
        });
        out.is_error = failed;
        return out;
    }
    if matches!(kind, Kind::Other | Kind::Image) {
        return ToolOutput::error(format!(
            "{head}: not text — web_fetch reads HTML, text, JSON and images"
        ));
    }
    let text = String::from_utf8_lossy(&page.body);
    let body = match (kind, format) {
        (Kind::Html, Format::Markdown) => crate::net::markdown(&text),
        (Kind::Html, Format::Text) => crate::net::text_of_markdown(&crate::net::markdown(&text)),
        // Raw, and text of every other kind: as sent.
        _ => text.into_owned(),
    };
    let out = format!("{head}\n\n{body}");
    let out = if failed {
        ToolOutput::error(out)
    } else {
        ToolOutput::ok(out)
    };
    out.cut(limit.saturating_sub(200))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(allow: &[&str]) -> WebFetch {
        let network = crate::config::NetworkSettings {
            allow: allow
                .iter()
                .map(|a| crate::config::HostRule::try_from(a.to_string()).unwrap())
                .collect(),
            deny: Vec::new(),
        };
        WebFetch {
            ctx: Arc::new(Context::for_tests(std::path::Path::new("/tmp"))),
            fetcher: Fetcher::new(network, crate::config::BuiltinSettings::default().web_fetch),
        }
    }

    /// Asked per domain: a host `[network] allow` names runs as a read, any
    /// other is asked (and runs in plan mode), a key-shaped URL is asked
    /// past every flag.
    #[test]
    fn a_call_is_asked_by_its_domain_and_what_its_url_carries() {
        let t = tool(&["docs.rs"]);
        let h = |url: &str| t.hints(&json!({ "url": url }));
        assert!(h("https://docs.rs/tokio").read_only);
        let other = h("https://example.com/");
        assert!(!other.read_only && other.investigates && other.always_ask.is_none());
        let key = h("https://docs.rs/?api_key=x");
        assert!(!key.read_only && key.even_under_yolo && key.always_ask.is_some());
        // Nothing is sent for these: nothing to ask.
        assert!(h("ftp://example.com/").read_only);
        assert!(h("not a url").read_only);
    }
}
