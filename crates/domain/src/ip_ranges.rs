//! Which IP addresses are globally reachable (SPEC §11), after the IANA IPv4 and IPv6
//! Special-Purpose Address Registries (RFC 6890, RFC 8190).
//!
//! The tables are transcribed row for row: prefix, length, name, RFC and the registry's "Globally
//! Reachable" column, as the registries stood in 2025 (the newest rows: IPv6 100:0:0:1::/64 from
//! RFC 9780 and 2001:1::3/128 from RFC 9665). They were written without a live copy of the
//! registries at hand: when touching them, compare with
//! <https://www.iana.org/assignments/iana-ipv4-special-registry> and
//! <https://www.iana.org/assignments/iana-ipv6-special-registry>. The few rows that are not in
//! those registries say where they come from.
//!
//! An address takes the answer of the most specific row containing it; an IPv4 address in no row
//! is ordinary unicast. IPv6 forms that carry an IPv4 address the packet ends up at (mapped,
//! compatible, NAT64, 6to4, Teredo) are judged by that IPv4 address instead, because that is
//! the host a connection reaches.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The registry's "Globally Reachable" column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    Global,
    NotGlobal,
    /// "N/A": deprecated blocks and transition mechanisms. Treated as not global, except that
    /// 6to4 and Teredo addresses are judged by their embedded IPv4 address first.
    NotApplicable,
}

/// One row of a special-purpose registry.
#[derive(Clone, Copy, Debug)]
pub struct SpecialBlock<A> {
    pub prefix: A,
    pub len: u8,
    pub name: &'static str,
    pub rfc: &'static str,
    pub reach: Reach,
}

/// An address family the tables can hold, widened to `u128` so one lookup serves both.
pub trait Address: Copy {
    const BITS: u32;
    fn to_u128(self) -> u128;
}

impl Address for Ipv4Addr {
    const BITS: u32 = 32;
    fn to_u128(self) -> u128 {
        u128::from(self.to_bits())
    }
}

impl Address for Ipv6Addr {
    const BITS: u32 = 128;
    fn to_u128(self) -> u128 {
        self.to_bits()
    }
}

impl<A: Address> SpecialBlock<A> {
    pub fn contains(&self, ip: A) -> bool {
        let host_bits = A::BITS.saturating_sub(u32::from(self.len));
        // checked_shr: a /0 shifts out every bit, which `>>` would reject as an overflow.
        (ip.to_u128() ^ self.prefix.to_u128())
            .checked_shr(host_bits)
            .unwrap_or(0)
            == 0
    }
}

/// The most specific row containing `ip`.
pub fn most_specific<A: Address>(table: &[SpecialBlock<A>], ip: A) -> Option<&SpecialBlock<A>> {
    table
        .iter()
        .filter(|b| b.contains(ip))
        .max_by_key(|b| b.len)
}

const fn v4(
    a: [u8; 4],
    len: u8,
    name: &'static str,
    rfc: &'static str,
    reach: Reach,
) -> SpecialBlock<Ipv4Addr> {
    SpecialBlock {
        prefix: Ipv4Addr::new(a[0], a[1], a[2], a[3]),
        len,
        name,
        rfc,
        reach,
    }
}

const fn v6(
    s: [u16; 8],
    len: u8,
    name: &'static str,
    rfc: &'static str,
    reach: Reach,
) -> SpecialBlock<Ipv6Addr> {
    SpecialBlock {
        prefix: Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        len,
        name,
        rfc,
        reach,
    }
}

use Reach::{Global, NotApplicable, NotGlobal};

/// The IANA IPv4 Special-Purpose Address Registry, plus multicast.
#[rustfmt::skip]
pub const IPV4_BLOCKS: &[SpecialBlock<Ipv4Addr>] = &[
    v4([0, 0, 0, 0], 8, "\"This network\"", "RFC 791 §3.2", NotGlobal),
    v4([0, 0, 0, 0], 32, "\"This host on this network\"", "RFC 1122 §3.2.1.3", NotGlobal),
    v4([10, 0, 0, 0], 8, "Private-Use", "RFC 1918", NotGlobal),
    v4([100, 64, 0, 0], 10, "Shared Address Space", "RFC 6598", NotGlobal),
    v4([127, 0, 0, 0], 8, "Loopback", "RFC 1122 §3.2.1.3", NotGlobal),
    v4([169, 254, 0, 0], 16, "Link Local", "RFC 3927", NotGlobal),
    v4([172, 16, 0, 0], 12, "Private-Use", "RFC 1918", NotGlobal),
    v4([192, 0, 0, 0], 24, "IETF Protocol Assignments", "RFC 6890 §2.1", NotGlobal),
    v4([192, 0, 0, 0], 29, "IPv4 Service Continuity Prefix", "RFC 7335", NotGlobal),
    v4([192, 0, 0, 8], 32, "IPv4 dummy address", "RFC 7600", NotGlobal),
    v4([192, 0, 0, 9], 32, "Port Control Protocol Anycast", "RFC 7723", Global),
    v4([192, 0, 0, 10], 32, "Traversal Using Relays around NAT Anycast", "RFC 8155", Global),
    v4([192, 0, 0, 170], 32, "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050 §2.2", NotGlobal),
    v4([192, 0, 0, 171], 32, "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050 §2.2", NotGlobal),
    v4([192, 0, 2, 0], 24, "Documentation (TEST-NET-1)", "RFC 5737", NotGlobal),
    v4([192, 31, 196, 0], 24, "AS112-v4", "RFC 7535", Global),
    v4([192, 52, 193, 0], 24, "AMT", "RFC 7450", Global),
    v4([192, 88, 99, 0], 24, "Deprecated (6to4 Relay Anycast)", "RFC 7526", NotApplicable),
    v4([192, 88, 99, 2], 32, "6a44-relay anycast address", "RFC 6751", Global),
    v4([192, 168, 0, 0], 16, "Private-Use", "RFC 1918", NotGlobal),
    v4([192, 175, 48, 0], 24, "Direct Delegation AS112 Service", "RFC 7534", Global),
    v4([198, 18, 0, 0], 15, "Benchmarking", "RFC 2544", NotGlobal),
    v4([198, 51, 100, 0], 24, "Documentation (TEST-NET-2)", "RFC 5737", NotGlobal),
    v4([203, 0, 113, 0], 24, "Documentation (TEST-NET-3)", "RFC 5737", NotGlobal),
    v4([240, 0, 0, 0], 4, "Reserved", "RFC 1112 §4", NotGlobal),
    v4([255, 255, 255, 255], 32, "Limited Broadcast", "RFC 8190, RFC 919 §7", NotGlobal),
    // Not in the special-purpose registry (multicast has its own); a webhook is unicast HTTP.
    v4([224, 0, 0, 0], 4, "Multicast", "RFC 5771", NotGlobal),
];

/// The IANA IPv6 Special-Purpose Address Registry, plus the rows marked as from elsewhere.
#[rustfmt::skip]
pub const IPV6_BLOCKS: &[SpecialBlock<Ipv6Addr>] = &[
    v6([0, 0, 0, 0, 0, 0, 0, 1], 128, "Loopback Address", "RFC 4291", NotGlobal),
    v6([0, 0, 0, 0, 0, 0, 0, 0], 128, "Unspecified Address", "RFC 4291", NotGlobal),
    v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96, "IPv4-mapped Address", "RFC 4291", NotGlobal),
    v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96, "IPv4-IPv6 Translat.", "RFC 6052", Global),
    v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48, "IPv4-IPv6 Translat.", "RFC 8215", NotGlobal),
    v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64, "Discard-Only Address Block", "RFC 6666", NotGlobal),
    v6([0x100, 0, 0, 1, 0, 0, 0, 0], 64, "Dummy IPv6 Prefix", "RFC 9780", NotGlobal),
    v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23, "IETF Protocol Assignments", "RFC 2928", NotGlobal),
    v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32, "TEREDO", "RFC 4380, RFC 8190", NotApplicable),
    v6([0x2001, 1, 0, 0, 0, 0, 0, 1], 128, "Port Control Protocol Anycast", "RFC 7723", Global),
    v6([0x2001, 1, 0, 0, 0, 0, 0, 2], 128, "Traversal Using Relays around NAT Anycast", "RFC 8155", Global),
    v6([0x2001, 1, 0, 0, 0, 0, 0, 3], 128, "DNS-SD Service Registration Protocol Anycast", "RFC 9665", Global),
    v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48, "Benchmarking", "RFC 5180, RFC Errata 1752", NotGlobal),
    v6([0x2001, 3, 0, 0, 0, 0, 0, 0], 32, "AMT", "RFC 7450", Global),
    v6([0x2001, 4, 0x112, 0, 0, 0, 0, 0], 48, "AS112-v6", "RFC 7535", Global),
    v6([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28, "Deprecated (previously ORCHID)", "RFC 4843", NotApplicable),
    v6([0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28, "ORCHIDv2", "RFC 7343", Global),
    v6([0x2001, 0x30, 0, 0, 0, 0, 0, 0], 28, "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", Global),
    v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, "Documentation", "RFC 3849", NotGlobal),
    v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16, "6to4", "RFC 3056", NotApplicable),
    v6([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48, "Direct Delegation AS112 Service", "RFC 7534", Global),
    v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, "Documentation", "RFC 9637", NotGlobal),
    v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16, "Segment Routing (SRv6) SIDs", "RFC 9602", NotGlobal),
    v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, "Unique-Local", "RFC 4193, RFC 8190", NotGlobal),
    v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, "Link-Local Unicast", "RFC 4291", NotGlobal),
    // Not in the special-purpose registry. Deprecated, and judged by its IPv4 address anyway.
    v6([0, 0, 0, 0, 0, 0, 0, 0], 96, "IPv4-compatible Address", "RFC 4291 §2.5.5.1", NotGlobal),
    // Not in the special-purpose registry (multicast has its own).
    v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, "Multicast", "RFC 4291", NotGlobal),
    // From the IANA IPv6 Address Space registry: only 2000::/3 is handed out for global unicast;
    // the rest is reserved by the IETF (site-local fec0::/10 among it), so no public host is
    // there, while a private network might be.
    v6([0, 0, 0, 0, 0, 0, 0, 0], 0, "Reserved by IETF", "RFC 4291", NotGlobal),
    v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3, "Global Unicast", "RFC 4291", Global),
];

/// Whether a webhook may connect to `ip`: only globally reachable addresses qualify.
pub fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => ipv4_is_global(v4),
        IpAddr::V6(v6) => ipv6_is_global(v6),
    }
}

pub fn ipv4_is_global(ip: Ipv4Addr) -> bool {
    most_specific(IPV4_BLOCKS, ip).is_none_or(|b| b.reach == Reach::Global)
}

pub fn ipv6_is_global(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_ipv4(ip) {
        return ipv4_is_global(v4);
    }
    most_specific(IPV6_BLOCKS, ip).is_some_and(|b| b.reach == Reach::Global)
}

/// The IPv4 host an IPv6 address leads to, for the forms that embed one: IPv4-mapped
/// (::ffff:0:0/96) and IPv4-compatible (::/96, which also covers :: and ::1, both of which map to
/// 0.0.0.0/8 and so stay refused), NAT64's well-known prefix (64:ff9b::/96, RFC 6052), 6to4
/// (2002::/16, RFC 3056: the 32 bits after the prefix) and Teredo (2001::/32, RFC 4380: the
/// client's address, inverted, in the last 32 bits).
///
/// The local-use NAT64 prefix 64:ff9b:1::/48 is not decoded: the registry refuses it whole, as
/// whatever translates it is local. A 6to4 or Teredo address of a public IPv4 host is allowed:
/// reaching it reaches that public host, as a plain IPv4 URL may.
pub fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    // Truncation is the point: the embedded address is the low 32 bits.
    let low = Ipv4Addr::from_bits(ip.to_bits() as u32);
    match ip.segments() {
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0, 0, _, _] => Some(low),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(low),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::from_bits(u32::from(hi) << 16 | u32::from(lo))),
        [0x2001, 0, ..] => Some(Ipv4Addr::from_bits(!low.to_bits())),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
