//! The one TLS policy of every HTTP client hermes builds — model providers,
//! remote MCP servers, OAuth, the connector gateway: rustls with ring, and
//! the roots the system trusts (its store, or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR` when set), so a company CA works for all of them or none.
//!
//! The roots are read at the first TLS handshake, not when a client is
//! built: start-up pays nothing for them, and a machine with no CA bundle
//! can still talk plain HTTP to a local model server.

use std::sync::{Arc, Once, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// rustls with ring as the process's TLS provider, installed once.
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    install();
    rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

/// The client TLS configuration every HTTP client uses (shared: the roots
/// are read once a run).
pub(crate) fn config() -> rustls::ClientConfig {
    static CONFIG: OnceLock<rustls::ClientConfig> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let p = provider();
            // ring has safe versions; the fallback is the same builder.
            let builder = match rustls::ClientConfig::builder_with_provider(p.clone())
                .with_safe_default_protocol_versions()
            {
                Ok(b) => b,
                Err(_) => rustls::ClientConfig::builder(),
            };
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(SystemRoots::new(p)))
                .with_no_client_auth()
        })
        .clone()
}

/// The system's roots, loaded at the first certificate to check.
#[derive(Debug)]
struct SystemRoots {
    provider: Arc<rustls::crypto::CryptoProvider>,
    verifier: OnceLock<Result<rustls_platform_verifier::Verifier, String>>,
}

impl SystemRoots {
    fn new(provider: Arc<rustls::crypto::CryptoProvider>) -> SystemRoots {
        SystemRoots {
            provider,
            verifier: OnceLock::new(),
        }
    }

    fn get(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        self.verifier
            .get_or_init(|| {
                rustls_platform_verifier::Verifier::new(self.provider.clone()).map_err(|e| {
                    format!(
                        "no CA certificates to check the server with ({e}); install the \
                         system's CA bundle or set SSL_CERT_FILE"
                    )
                })
            })
            .as_ref()
            .map_err(|e| rustls::Error::General(e.clone()))
    }
}

impl ServerCertVerifier for SystemRoots {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.get()?
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.get()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.get()?.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        // Known without the roots: the provider's schemes.
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
