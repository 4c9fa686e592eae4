#![no_main]
//! The config loader on arbitrary text.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = hermes::config::parse_text(std::path::Path::new("fuzz.toml"), text);
    }
});
