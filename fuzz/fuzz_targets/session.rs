#![no_main]
//! The session-file loader on arbitrary bytes.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = hermes::session::parse(std::path::Path::new("fuzz.jsonl"), data);
});
