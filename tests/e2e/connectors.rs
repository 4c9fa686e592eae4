//! The connector gateway's listing: kept once it worked, retried when it did
//! not — one failure must not hide the gateway's tools for the whole run.

use std::time::Duration;

use hermes::config::ConnectorSettings;
use hermes::connectors::{Gateway, GatewayError};

use crate::support::fake_gateway::FakeGateway;

#[test]
fn a_failed_listing_is_retried_after_a_pause_and_a_good_one_is_kept() {
    let fake = FakeGateway::start();
    fake.fail_listings(1);
    let gw = Gateway::new(&ConnectorSettings {
        url: fake.url(),
        token_env: None,
        timeout: Duration::from_secs(10),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let err = gw.tools().await.unwrap_err();
        assert_eq!(
            err,
            GatewayError::Status {
                url: format!("{}/tools", fake.url()),
                status: 503
            }
        );
        // Asked again at once: the same answer, without another request.
        assert_eq!(gw.tools().await.unwrap_err(), err);
        assert_eq!(fake.listings(), 1);
        assert!(gw.tools_now().is_empty());

        tokio::time::pause();
        tokio::time::advance(Duration::from_secs(6)).await;
        tokio::time::resume();
        let tools = gw.tools().await.expect("the gateway is back");
        assert_eq!(tools.len(), 2);
        assert_eq!(fake.listings(), 2);
        assert_eq!(gw.tools_now().len(), 2);
        gw.tools().await.unwrap();
        assert_eq!(fake.listings(), 2, "a good listing is kept for the run");
    });
}
