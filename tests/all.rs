//! End-to-end tests: the real `hermes` binary against a fake provider over real
//! HTTP/SSE, each test with its own `HERMES_HOME`.

mod support;

mod e2e;
