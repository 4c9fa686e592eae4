//! A private CA, as a company has, and a TLS front for a plain local port:
//! it terminates TLS with a certificate for `localhost` signed by that CA
//! and passes the bytes on. hermes reaches the fake provider and a real MCP
//! server through it with `SSL_CERT_FILE` naming the CA, as a user behind a
//! company proxy does.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// The CA: its certificate in a PEM file, and what it signed.
pub struct PrivateCa {
    pub pem_file: PathBuf,
    server: Arc<rustls::ServerConfig>,
}

impl PrivateCa {
    /// A new CA in `dir` (`company-ca.pem`), with a server certificate for
    /// `localhost` and 127.0.0.1.
    pub fn new(dir: &Path) -> PrivateCa {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca.distinguished_name
            .push(rcgen::DnType::CommonName, "Example Corp Internal Root CA");
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca, ca_key);
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap()
            .signed_by(&leaf_key, &issuer)
            .unwrap();
        let pem_file = dir.join("company-ca.pem");
        std::fs::write(&pem_file, ca_cert.pem()).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let server = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(leaf.der().to_vec())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
            )
            .unwrap();
        PrivateCa {
            pem_file,
            server: Arc::new(server),
        }
    }

    /// A TLS front on a port of its own for `127.0.0.1:target`; its port.
    pub fn front(&self, target: u16) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let config = self.server.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let config = config.clone();
                std::thread::spawn(move || relay(stream, config, target));
            }
        });
        port
    }
}

/// One connection: TLS on the outside, plain bytes to `target`.
fn relay(outside: TcpStream, config: Arc<rustls::ServerConfig>, target: u16) {
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(conn, outside);
    let Ok(mut inside) = TcpStream::connect(("127.0.0.1", target)) else {
        return;
    };
    let _ = tls
        .sock
        .set_read_timeout(Some(std::time::Duration::from_millis(20)));
    let _ = inside.set_read_timeout(Some(std::time::Duration::from_millis(20)));
    let mut buf = [0u8; 16384];
    loop {
        let mut moved = false;
        match tls.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if inside.write_all(&buf[..n]).is_err() {
                    return;
                }
                moved = true;
            }
            Err(e) if is_wait(&e) => {}
            Err(_) => return,
        }
        match inside.read(&mut buf) {
            Ok(0) => {
                let _ = tls.flush();
                tls.conn.send_close_notify();
                let _ = tls.flush();
                return;
            }
            Ok(n) => {
                if tls.write_all(&buf[..n]).and_then(|_| tls.flush()).is_err() {
                    return;
                }
                moved = true;
            }
            Err(e) if is_wait(&e) => {}
            Err(_) => return,
        }
        if !moved {
            std::thread::yield_now();
        }
    }
}

fn is_wait(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}
