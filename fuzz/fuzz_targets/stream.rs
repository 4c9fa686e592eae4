#![no_main]
//! The stream chunk assembler on arbitrary `data:` payloads, one per line.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        hermes::app::fuzzing::assemble(text.lines());
    }
});
