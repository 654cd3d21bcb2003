//! The sign-in throttle's rule (SPEC §21): after 10 failures for one email from one IP within 15
//! minutes, that pair waits. Only the pair: the same email from elsewhere still signs in, so
//! nobody can lock another person out. Storage keeps the failures where every process sees them.

use chrono::Duration;
use std::net::IpAddr;

/// Failures of one pair within [`LOGIN_FAILURE_WINDOW`] that stop its sign-ins.
pub const LOGIN_FAILURE_LIMIT: u64 = 10;
/// How far back failures count. A refused attempt is recorded as a failure too, so a pair that
/// keeps trying stays stopped, and one that waits 15 minutes gets its attempts back.
pub const LOGIN_FAILURE_WINDOW: Duration = Duration::minutes(15);

/// Longer typed emails are cut: the key only has to tell people apart.
const EMAIL_KEY_MAX: usize = 320;

/// Whose failures count together: the email as typed (trimmed, lower case, valid or not, since
/// unknown emails are throttled like known ones) and the client's network. An IPv6 client is
/// keyed by its /64, the block one host usually holds, so it cannot dodge the limit by changing
/// addresses within it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThrottleKey {
    pub email: String,
    pub ip: String,
}

impl ThrottleKey {
    pub fn new(typed_email: &str, ip: IpAddr) -> ThrottleKey {
        let email = typed_email
            .trim()
            .to_lowercase()
            .chars()
            .take(EMAIL_KEY_MAX)
            .collect();
        let ip = match ip {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => v4.to_string(),
                None => {
                    let s = v6.segments();
                    format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
                }
            },
        };
        ThrottleKey { email, ip }
    }

    /// Whether this many failures within the window stop the pair's next attempt.
    pub fn is_throttled(failures_in_window: u64) -> bool {
        failures_in_window >= LOGIN_FAILURE_LIMIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_case_spaces_and_the_host_part_of_ipv6() {
        let a = ThrottleKey::new(" Ada@Example.com ", "2001:db8:1:2:aaaa::1".parse().unwrap());
        let b = ThrottleKey::new("ada@example.com", "2001:db8:1:2:bbbb::9".parse().unwrap());
        assert_eq!(a, b);
        assert_eq!(a.ip, "2001:db8:1:2::/64");
        let c = ThrottleKey::new("ada@example.com", "2001:db8:1:3::1".parse().unwrap());
        assert_ne!(a, c);
        let v4 = ThrottleKey::new("x", "192.0.2.7".parse().unwrap());
        let mapped = ThrottleKey::new("x", "::ffff:192.0.2.7".parse().unwrap());
        assert_eq!(v4, mapped);
        assert_eq!(v4.ip, "192.0.2.7");
        assert_eq!(
            ThrottleKey::new(&"a".repeat(1000), v4_ip()).email.len(),
            320
        );
    }

    fn v4_ip() -> IpAddr {
        "192.0.2.1".parse().unwrap()
    }

    #[test]
    fn the_tenth_failure_stops_the_pair() {
        assert!(!ThrottleKey::is_throttled(9));
        assert!(ThrottleKey::is_throttled(10));
    }
}
