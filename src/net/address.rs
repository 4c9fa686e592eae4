//! Addresses hermes' own fetches do not reach unless `[network] allow`
//! names the host: the machine itself, the private networks it sits on,
//! and the cloud metadata services a request from inside one could read
//! credentials from.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of address `ip` is, when it is one of those (`None`: a public
/// address).
pub(crate) fn special(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => special_v4(v4),
            None => special_v6(v6),
        },
    }
}

fn special_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(match () {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_unspecified() || a == 0 => "this host",
        // Before link-local: the metadata service is one of them.
        _ if ip == Ipv4Addr::new(169, 254, 169, 254) => "a cloud metadata service",
        _ if ip.is_link_local() => "link-local",
        _ if ip.is_private() => "private",
        _ if a == 100 && (64..128).contains(&b) => "shared (CGNAT)",
        _ if ip.is_multicast() => "multicast",
        _ if ip.is_broadcast() || a >= 240 => "reserved",
        _ if a == 192 && b == 0 && ip.octets()[2] == 0 => "reserved (IETF)",
        _ if a == 198 && (b == 18 || b == 19) => "reserved (benchmarking)",
        _ => return None,
    })
}

fn special_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    Some(match () {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_unspecified() => "this host",
        // AWS's IPv6 metadata address.
        _ if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) => "a cloud metadata service",
        _ if first & 0xfe00 == 0xfc00 => "private (unique local)",
        _ if first & 0xffc0 == 0xfe80 => "link-local",
        _ if ip.is_multicast() => "multicast",
        // NAT64 and 6to4 carry an IPv4 address inside: judged by it.
        _ if first == 0x64 && ip.segments()[1] == 0xff9b => {
            let [.., c, d] = ip.segments();
            let v4 = Ipv4Addr::new((c >> 8) as u8, c as u8, (d >> 8) as u8, d as u8);
            return special_v4(v4);
        }
        _ if first == 0x2002 => {
            let [_, b, c, ..] = ip.segments();
            let v4 = Ipv4Addr::new((b >> 8) as u8, b as u8, (c >> 8) as u8, c as u8);
            return special_v4(v4);
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<&'static str> {
        special(s.parse().unwrap())
    }

    #[test]
    fn the_machine_its_networks_and_metadata_are_special() {
        assert_eq!(kind("127.0.0.1"), Some("loopback"));
        assert_eq!(kind("127.8.9.1"), Some("loopback"));
        assert_eq!(kind("0.0.0.0"), Some("this host"));
        assert_eq!(kind("10.1.2.3"), Some("private"));
        assert_eq!(kind("172.16.0.1"), Some("private"));
        assert_eq!(kind("192.168.1.1"), Some("private"));
        assert_eq!(kind("169.254.169.254"), Some("a cloud metadata service"));
        assert_eq!(kind("169.254.1.1"), Some("link-local"));
        assert_eq!(kind("100.64.0.1"), Some("shared (CGNAT)"));
        assert_eq!(kind("224.0.0.1"), Some("multicast"));
        assert_eq!(kind("::1"), Some("loopback"));
        assert_eq!(kind("::ffff:127.0.0.1"), Some("loopback"));
        assert_eq!(kind("::ffff:10.0.0.1"), Some("private"));
        assert_eq!(kind("fd00:ec2::254"), Some("a cloud metadata service"));
        assert_eq!(kind("fd12::1"), Some("private (unique local)"));
        assert_eq!(kind("fe80::1"), Some("link-local"));
        assert_eq!(kind("64:ff9b::7f00:1"), Some("loopback"));
        assert_eq!(kind("2002:a00:1::"), Some("private"));
    }

    #[test]
    fn public_addresses_are_not() {
        for ip in [
            "93.184.215.14",
            "8.8.8.8",
            "100.128.0.1",
            "2606:4700::1111",
            "172.32.0.1",
        ] {
            assert_eq!(kind(ip), None, "{ip}");
        }
    }
}
