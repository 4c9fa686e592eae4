//! SigV4 for one Bedrock request, by the maintained `aws-sigv4` crate: the
//! signature covers the method, the percent-encoded path, the host, the time
//! and a hash of the body, so it is made per attempt, after the body is final.

use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;

use super::credentials::Keys;

/// The headers that sign a POST of `body` to `url` (`x-amz-date`,
/// `authorization`, and `x-amz-security-token` for temporary keys).
pub(super) fn sign_post(
    keys: &Keys,
    region: &str,
    service: &str,
    time: SystemTime,
    url: &str,
    body: &[u8],
) -> Result<Vec<(String, String)>, String> {
    let identity: Identity = Credentials::new(
        keys.access_key_id.clone(),
        keys.secret_access_key.clone(),
        keys.session_token.clone(),
        None,
        "hermes",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(service)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| e.to_string())?
        .into();
    let request = SignableRequest::new("POST", url, std::iter::empty(), SignableBody::Bytes(body))
        .map_err(|e| e.to_string())?;
    let (instructions, _) = sign(request, &params)
        .map_err(|e| e.to_string())?
        .into_parts();
    Ok(instructions
        .headers()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// AWS's published SigV4 test suite: credentials, time, region and
    /// service of every case, and the expected `Authorization` of two.
    fn suite() -> (Keys, SystemTime) {
        let keys = Keys {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
        };
        // 2015-08-30T12:36:00Z
        (
            keys,
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_440_938_160),
        )
    }

    fn header<'a>(h: &'a [(String, String)], name: &str) -> &'a str {
        h.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    #[test]
    fn post_vanilla_matches_the_published_vector() {
        let (keys, time) = suite();
        let h = sign_post(
            &keys,
            "us-east-1",
            "service",
            time,
            "https://example.amazonaws.com/",
            b"",
        )
        .unwrap();
        assert_eq!(header(&h, "x-amz-date"), "20150830T123600Z");
        assert_eq!(
            header(&h, "authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=host;x-amz-date, \
             Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        );
    }

    #[test]
    fn a_body_and_a_session_token_change_the_signature_and_are_sent() {
        let (mut keys, time) = suite();
        let url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3%3A0/converse-stream";
        let a = sign_post(&keys, "us-east-1", "bedrock", time, url, b"{}").unwrap();
        let b = sign_post(&keys, "us-east-1", "bedrock", time, url, b"{ }").unwrap();
        assert_ne!(header(&a, "authorization"), header(&b, "authorization"));
        assert!(header(&a, "authorization").contains("/us-east-1/bedrock/aws4_request"));
        keys.session_token = Some("FQoGZXIvYXdzEXAMPLE".into());
        let t = sign_post(&keys, "us-east-1", "bedrock", time, url, b"{}").unwrap();
        assert_eq!(header(&t, "x-amz-security-token"), "FQoGZXIvYXdzEXAMPLE");
        assert!(header(&t, "authorization").contains("x-amz-security-token"));
    }
}
