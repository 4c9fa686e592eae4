//! Every HTTP provider is a [`Provider`]: its [`http::Api`] builds the body,
//! the one request loop sends it, and its model listing, read once a run,
//! gives the models and their context windows.

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::chat::{ChatRequest, Completion, EventFn, Provider};
use super::{http, windows, ProviderError};
use crate::model::BlockApi;

/// Every HTTP provider is its `Api`: the body, then the one request loop.
impl<T: http::Api> Provider for T {
    fn blocks(&self) -> Option<BlockApi> {
        http::Api::blocks(self)
    }

    fn tool_limit(&self) -> Option<(usize, &'static str)> {
        let d = http::Api::dialect(self);
        d.max_tools.map(|n| (n, d.name))
    }

    fn complete<'a>(
        &'a self,
        req: ChatRequest<'a>,
        on_event: EventFn<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let body = self.body(&req);
            self.endpoint_for(req.model)
                .run(self, &body, on_event, cancel)
                .await
        })
    }

    fn reported_window<'a>(&'a self, model: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async move {
            let listing = model_listing(self).await?;
            windows::window_in_listing(&listing, model)
        })
    }

    fn models(&self) -> BoxFuture<'_, Option<Vec<String>>> {
        Box::pin(async move {
            let listing = model_listing(self).await?;
            let ids = windows::models_in_listing(&listing);
            (!ids.is_empty()).then_some(ids)
        })
    }
}

/// The API's model listing, once a run.
async fn model_listing<T: http::Api>(api: &T) -> Option<serde_json::Value> {
    let url = api.models_url()?;
    let headers = api.headers(&url, &[]).ok()?;
    api.endpoint().listing(&url, &headers).await
}
