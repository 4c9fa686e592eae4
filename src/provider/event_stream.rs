//! AWS event-stream framing (Bedrock's ConverseStream): messages read out
//! of a byte stream cut anywhere, each checked by its lengths and CRCs.

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};

use crate::util::text::excerpt;

/// AWS event-stream messages out of a byte stream cut anywhere: each
/// complete message as (`:event-type`, payload); an `exception` (or
/// `error`) message as (`!` + its type, payload). A frame whose length or
/// checksum is wrong is an error.
#[derive(Default)]
pub(crate) struct FrameReader {
    decoder: MessageFrameDecoder,
    pending: Vec<u8>,
}

impl FrameReader {
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        loop {
            let mut rest: &[u8] = &self.pending;
            let decoded = self.decoder.decode_frame(&mut rest);
            let used = self.pending.len() - rest.len();
            self.pending.drain(..used);
            let message = match decoded {
                Ok(DecodedFrame::Complete(m)) => m,
                Ok(DecodedFrame::Incomplete) => return Ok(out),
                Err(e) => return Err(excerpt(&e.to_string(), 120)),
            };
            let header = |name: &str| {
                message
                    .headers()
                    .iter()
                    .find(|h| h.name().as_str() == name)
                    .and_then(|h| h.value().as_string().ok())
                    .map(|s| s.as_str().to_string())
                    .unwrap_or_default()
            };
            let payload = String::from_utf8_lossy(message.payload()).into_owned();
            let event = match header(":message-type").as_str() {
                "exception" | "error" => match header(":exception-type") {
                    n if n.is_empty() => format!("!{}", header(":error-code")),
                    n => format!("!{n}"),
                },
                _ => header(":event-type"),
            };
            out.push((event, payload));
        }
    }
}

#[cfg(test)]
mod properties {
    use super::FrameReader;
    use crate::util::arbitrary::config;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn event_stream_bytes_decode_without_panicking(
            bytes in prop::collection::vec(any::<u8>(), 0..512),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let mut reader = FrameReader::default();
            let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            at.push(0);
            at.push(bytes.len());
            at.sort_unstable();
            for w in at.windows(2) {
                if reader.feed(&bytes[w[0]..w[1]]).is_err() {
                    break;
                }
            }
        }

        #[test]
        fn a_corrupted_event_stream_frame_is_an_error(flip in any::<prop::sample::Index>()) {
            use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
            let msg = Message::new_from_parts(
                vec![
                    Header::new(":event-type", HeaderValue::String("contentBlockDelta".into())),
                    Header::new(":message-type", HeaderValue::String("event".into())),
                ],
                br#"{"contentBlockIndex":0,"delta":{"text":"hi"}}"#.to_vec(),
            );
            let mut frame = Vec::new();
            aws_smithy_eventstream::frame::write_message_to(&msg, &mut frame).unwrap();
            let good = FrameReader::default().feed(&frame).unwrap();
            prop_assert_eq!(good.len(), 1);
            prop_assert_eq!(good[0].0.as_str(), "contentBlockDelta");
            let i = flip.index(frame.len());
            frame[i] ^= 0x01;
            // A flipped bit breaks a checksum or a length: an error, or a
            // frame still waiting for bytes — never a panic, never the event.
            let bad = FrameReader::default().feed(&frame);
            prop_assert!(bad.map_or(true, |e| e.is_empty()));
        }
    }
}
