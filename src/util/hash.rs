//! A stable 64-bit hash (FNV-1a) for names and cache keys: the same input gives
//! the same output on every machine and every run, unlike `DefaultHasher`.

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// FNV-1a as a `Hasher`, for maps keyed by short strings that are built
/// often (the search index's vocabulary): several times faster than the
/// default SipHash there, and keys come from tool catalogs, not attackers
/// probing for collisions.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

pub(crate) type FnvMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

pub(crate) fn hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a(bytes))
}

/// Bytes as lower-case hex, two digits each (a digest).
pub(crate) fn digest_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `bytes` in hex: a name that only these bytes have.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    digest_hex(&sha2::Sha256::digest(bytes))
}

/// The SHA-256 of what `reader` gives, in hex, read a block at a time:
/// a file of any size is hashed in constant memory.
pub(crate) fn sha256_hex_of(mut reader: impl std::io::Read) -> std::io::Result<String> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(digest_hex(&hasher.finalize())),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_vectors() {
        assert_eq!(super::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    /// A stream hashed a block at a time is the same as all at once, past
    /// one block too.
    #[test]
    fn a_streamed_sha256_is_the_whole_ones() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(
            super::sha256_hex_of(&bytes[..]).unwrap(),
            super::sha256_hex(&bytes)
        );
        assert_eq!(
            super::sha256_hex_of(&b""[..]).unwrap(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
