//! End-to-end tests: the real `hermes` binary against a fake provider over real
//! HTTP/SSE, each test with its own `HERMES_HOME`. The harness is the
//! `hermes-test-support` crate (tests/support), shared with the benches.

use hermes_test_support as support;
pub(crate) use hermes_test_support::{assert_contains, assert_not_contains};

mod e2e;
