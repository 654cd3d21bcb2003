use super::*;

/// `(address, globally reachable?)`: the reported bypasses, at least one address in every row of
/// both tables (checked by `every_row_has_a_case`), boundaries, and public addresses.
const CASES: &[(&str, bool)] = &[
    // The bypasses found by black-box testing.
    ("::127.0.0.1", false),
    ("2002:7f00:1::1", false),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", false), // Teredo, client 127.0.0.1
    ("198.18.0.2", false),
    ("100::1", false),
    // IPv4, row by row.
    ("0.1.2.3", false),
    ("0.0.0.0", false),
    ("10.1.2.3", false),
    ("100.64.0.1", false),
    ("100.127.255.254", false),
    ("127.0.0.1", false),
    ("127.255.255.255", false),
    ("169.254.169.254", false),
    ("172.16.0.1", false),
    ("172.31.255.255", false),
    ("192.0.0.100", false),
    ("192.0.0.1", false),
    ("192.0.0.8", false),
    ("192.0.0.9", true),
    ("192.0.0.10", true),
    ("192.0.0.170", false),
    ("192.0.0.171", false),
    ("192.0.2.1", false),
    ("192.31.196.1", true),
    ("192.52.193.1", true),
    ("192.88.99.1", false),
    ("192.88.99.2", true),
    ("192.168.1.1", false),
    ("192.175.48.1", true),
    ("198.19.255.255", false),
    ("198.51.100.7", false),
    ("203.0.113.9", false),
    ("240.0.0.1", false),
    ("254.1.2.3", false),
    ("255.255.255.255", false),
    ("224.0.0.1", false),
    ("239.255.255.250", false),
    // IPv4 neighbours of those rows, and public addresses.
    ("100.128.0.1", true),
    ("100.63.255.255", true),
    ("172.32.0.1", true),
    ("198.17.255.255", true),
    ("198.20.0.1", true),
    ("192.0.1.1", true),
    ("223.255.255.255", true),
    ("8.8.8.8", true),
    ("1.1.1.1", true),
    ("93.184.216.34", true),
    // IPv6, row by row.
    ("::1", false),
    ("::", false),
    ("::ffff:127.0.0.1", false),
    ("::ffff:10.0.0.1", false),
    ("::ffff:8.8.8.8", true),
    ("64:ff9b::7f00:1", false),
    ("64:ff9b::a00:1", false),
    ("64:ff9b::808:808", true),
    ("64:ff9b:1::808:808", false),
    ("100::ffff", false),
    ("100:0:0:1::1", false),
    ("2001:100::1", false),
    ("2001:1::4", false),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", false), // Teredo, client 10.0.0.1
    ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", true),  // Teredo, client 8.8.8.8
    ("2001:1::1", true),
    ("2001:1::2", true),
    ("2001:1::3", true),
    ("2001:2::1", false),
    ("2001:3::1", true),
    ("2001:4:112::1", true),
    ("2001:10::1", false),
    ("2001:20::1", true),
    ("2001:30::1", true),
    ("2001:db8::1", false),
    ("2002:a00:1::1", false),
    ("2002:c0a8:101::1", false),
    ("2002:808:808::1", true),
    ("2620:4f:8000::1", true),
    ("3fff::1", false),
    ("3fff:fff::1", false),
    ("5f00::1", false),
    ("fc00::1", false),
    ("fd12:3456::1", false),
    ("fe80::1", false),
    ("febf::1", false),
    ("::10.0.0.1", false),
    ("::8.8.8.8", true),
    ("ff02::1", false),
    ("ff0e::1", false),
    ("fec0::1", false),
    ("4000::1", false),
    ("1::1", false),
    // IPv6 neighbours of those rows, and public addresses.
    ("2001:200::1", true),
    ("2001:db9::1", true),
    ("3fff:1000::1", true),
    ("2606:4700:4700::1111", true),
    ("2001:4860:4860::8888", true),
    ("2a00:1450:4001::1", true),
];

fn parsed() -> Vec<(IpAddr, bool)> {
    CASES
        .iter()
        .map(|(s, global)| (s.parse().unwrap_or_else(|e| panic!("{s}: {e}")), *global))
        .collect()
}

#[test]
fn every_case_gets_the_registry_answer() {
    let wrong: Vec<String> = parsed()
        .into_iter()
        .filter(|(ip, global)| is_global(*ip) != *global)
        .map(|(ip, global)| format!("{ip} should be global={global}"))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn every_row_has_a_case() {
    let cases = parsed();
    for block in IPV4_BLOCKS {
        let hit = cases.iter().any(|(ip, _)| match ip {
            IpAddr::V4(v4) => most_specific(IPV4_BLOCKS, *v4)
                .is_some_and(|b| b.prefix == block.prefix && b.len == block.len),
            IpAddr::V6(_) => false,
        });
        assert!(
            hit,
            "no case for {}/{} ({})",
            block.prefix, block.len, block.name
        );
    }
    for block in IPV6_BLOCKS {
        let hit = cases.iter().any(|(ip, _)| match ip {
            IpAddr::V6(v6) => most_specific(IPV6_BLOCKS, *v6)
                .is_some_and(|b| b.prefix == block.prefix && b.len == block.len),
            IpAddr::V4(_) => false,
        });
        assert!(
            hit,
            "no case for {}/{} ({})",
            block.prefix, block.len, block.name
        );
    }
}

/// A prefix with bits set past its length is a transcription slip: it would match nothing.
#[test]
fn prefixes_have_no_host_bits() {
    fn check<A: Address + std::fmt::Display>(table: &[SpecialBlock<A>]) {
        for b in table {
            let host_bits = A::BITS - u32::from(b.len);
            let host_mask = 1u128.checked_shl(host_bits).map_or(u128::MAX, |m| m - 1);
            assert_eq!(b.prefix.to_u128() & host_mask, 0, "{}/{}", b.prefix, b.len);
            assert!(u32::from(b.len) <= A::BITS, "{}/{}", b.prefix, b.len);
        }
    }
    check(IPV4_BLOCKS);
    check(IPV6_BLOCKS);
}

#[test]
fn embedded_forms_decode_to_their_ipv4_address() {
    let v4 = |s: &str| s.parse::<Ipv4Addr>().unwrap();
    for (v6, expected) in [
        ("::ffff:192.0.2.33", Some("192.0.2.33")),
        ("::192.0.2.33", Some("192.0.2.33")),
        ("64:ff9b::192.0.2.33", Some("192.0.2.33")),
        ("2002:c000:221::1", Some("192.0.2.33")),
        // RFC 4380 §4's example: server 65.54.227.120, client 192.0.2.45 behind a cone NAT.
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", Some("192.0.2.45")),
        ("64:ff9b:1::192.0.2.33", None),
        ("2606:4700:4700::1111", None),
    ] {
        let ip: Ipv6Addr = v6.parse().unwrap();
        assert_eq!(embedded_ipv4(ip), expected.map(v4), "{v6}");
    }
}
