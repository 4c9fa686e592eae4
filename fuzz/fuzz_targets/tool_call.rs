#![no_main]
//! The `tool_call` reader and classifier on arbitrary arguments.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let (name, args) = text.split_once('\n').unwrap_or(("tool_call", text));
        hermes::app::fuzzing::classify(name, args);
    }
});
