//! hermes' own reach to the network, outside the sandbox: which addresses
//! are off limits, what a URL must not carry, one fetch pinned to the
//! address it was checked at, and what a body becomes for the model.

mod address;
mod error;
mod fetch;
mod page;
mod proxy;
mod resolve;
mod secret_url;

pub(crate) use fetch::{host_port, parse, Fetched, Fetcher, Page};
pub(crate) use page::{markdown, text_of_markdown, Format, Kind};
pub(crate) use proxy::{serve as serve_proxy, LiveRules, Refused, RefusedSink};
pub(crate) use secret_url::secret_in;
