//! Stripe's webhook signatures (https://docs.stripe.com/webhooks#verify-manually): the
//! `Stripe-Signature` header is `t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=<hex>]`; each `v1` is
//! HMAC-SHA256, keyed with the endpoint's whole signing secret (`whsec_…`, as UTF-8 bytes), of
//! `"<t>." + the raw body`. Several `v1` come while a rolled secret is still valid; any one
//! matching will do. `v0` and unknown schemes are ignored, as Stripe's libraries do.

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use invoicing_domain::gateway::{GatewayError, Secret};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// How far the signed timestamp may be from now, either way, in seconds: Stripe's libraries'
/// default (300 s). Older notifications may be replays; Stripe retries with fresh signatures.
pub const SIGNATURE_TOLERANCE_SECS: u64 = 300;

fn mac(secret: &Secret, timestamp: i64, payload: &[u8]) -> HmacSha256 {
    // HMAC takes a key of any length: this cannot fail.
    let mut mac = HmacSha256::new_from_slice(secret.expose().as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    mac
}

/// The `Stripe-Signature` header Stripe would send for `payload` at `timestamp`: for tests and
/// stand-ins that play Stripe's part.
pub fn sign_notification(webhook_secret: &Secret, timestamp: i64, payload: &[u8]) -> String {
    let signature = mac(webhook_secret, timestamp, payload)
        .finalize()
        .into_bytes();
    format!("t={timestamp},v1={}", hex::encode(signature))
}

fn refused(reason: &'static str) -> GatewayError {
    GatewayError::BadSignature(reason)
}

/// Checks `header` against `payload`; the timestamp must be within the tolerance of `now`.
pub(crate) fn verify(
    webhook_secret: &Secret,
    header: &str,
    payload: &[u8],
    now: DateTime<Utc>,
) -> Result<(), GatewayError> {
    if header.trim().is_empty() {
        return Err(refused("the Stripe-Signature header is missing"));
    }
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let Some((scheme, value)) = part.trim().split_once('=') else {
            return Err(refused("the Stripe-Signature header is malformed"));
        };
        match scheme {
            "t" => {
                if timestamp.is_some() {
                    return Err(refused("the Stripe-Signature header has two timestamps"));
                }
                let t: i64 = value
                    .parse()
                    .map_err(|_| refused("the signature's timestamp is not a number"))?;
                timestamp = Some(t);
            }
            "v1" => signatures.push(
                hex::decode(value).map_err(|_| refused("a v1 signature is not hexadecimal"))?,
            ),
            _ => {}
        }
    }
    let Some(timestamp) = timestamp else {
        return Err(refused("the Stripe-Signature header has no timestamp"));
    };
    if signatures.is_empty() {
        return Err(refused("the Stripe-Signature header has no v1 signature"));
    }
    if now.timestamp().abs_diff(timestamp) > SIGNATURE_TOLERANCE_SECS {
        return Err(refused(
            "the signature's timestamp is outside the tolerance",
        ));
    }
    let expected = mac(webhook_secret, timestamp, payload);
    // Constant-time comparison of each candidate (`verify_slice`).
    if signatures
        .iter()
        .any(|s| expected.clone().verify_slice(s).is_ok())
    {
        Ok(())
    } else {
        Err(refused("no v1 signature matches"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    const SECRET: &str = "whsec_test_secret_4242";
    const BODY: &[u8] = br#"{"id":"evt_1","object":"event"}"#;

    fn secret() -> Secret {
        Secret::new(SECRET)
    }

    fn at(t: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(t, 0).unwrap()
    }

    fn reason(r: Result<(), GatewayError>) -> &'static str {
        match r {
            Err(GatewayError::BadSignature(reason)) => reason,
            other => panic!("expected a bad signature, got {other:?}"),
        }
    }

    /// Computed independently: HMAC-SHA256 keyed with the secret string over "<t>.<body>".
    #[test]
    fn the_signature_is_hmac_sha256_over_timestamp_dot_body() {
        let header = sign_notification(&secret(), 1_700_000_000, BODY);
        let mut mac = HmacSha256::new_from_slice(SECRET.as_bytes()).unwrap();
        mac.update(b"1700000000.");
        mac.update(BODY);
        let hex = hex::encode(mac.finalize().into_bytes());
        assert_eq!(header, format!("t=1700000000,v1={hex}"));
        assert_eq!(hex.len(), 64);
    }

    /// A vector from outside this code: the HMAC-SHA256 test case 2 of RFC 4231 (key "Jefe").
    #[test]
    fn hmac_matches_rfc_4231() {
        let mut mac = HmacSha256::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        assert_eq!(
            hex::encode(mac.finalize().into_bytes()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_fresh_signature_is_accepted_within_the_tolerance_either_way() {
        let t = 1_700_000_000;
        let header = sign_notification(&secret(), t, BODY);
        for now in [t, t + 300, t - 300, t + 1] {
            assert_eq!(verify(&secret(), &header, BODY, at(now)), Ok(()), "{now}");
        }
        // Spaces around the parts are tolerated.
        let spaced = header.replace(',', ", ");
        assert_eq!(verify(&secret(), &spaced, BODY, at(t)), Ok(()));
    }

    #[test]
    fn a_wrong_secret_is_refused() {
        let t = 1_700_000_000;
        let header = sign_notification(&Secret::new("whsec_other"), t, BODY);
        assert_eq!(
            reason(verify(&secret(), &header, BODY, at(t))),
            "no v1 signature matches"
        );
        // The prefix is part of the key.
        let header = sign_notification(&Secret::new("test_secret_4242"), t, BODY);
        assert!(verify(&secret(), &header, BODY, at(t)).is_err());
    }

    #[test]
    fn a_body_changed_after_signing_is_refused() {
        let t = 1_700_000_000;
        let header = sign_notification(&secret(), t, BODY);
        let changed = br#"{"id":"evt_2","object":"event"}"#;
        assert_eq!(
            reason(verify(&secret(), &header, changed, at(t))),
            "no v1 signature matches"
        );
        let mut longer = BODY.to_vec();
        longer.push(b'\n');
        assert!(verify(&secret(), &header, &longer, at(t)).is_err());
    }

    #[test]
    fn a_changed_timestamp_breaks_the_signature() {
        let t = 1_700_000_000;
        let header = sign_notification(&secret(), t, BODY).replace("t=1700000000", "t=1700000001");
        assert_eq!(
            reason(verify(&secret(), &header, BODY, at(t))),
            "no v1 signature matches"
        );
    }

    #[test]
    fn stale_and_future_timestamps_beyond_the_tolerance_are_refused() {
        let t = 1_700_000_000;
        let header = sign_notification(&secret(), t, BODY);
        for now in [t + 301, t - 301, t + 86_400, 0] {
            assert_eq!(
                reason(verify(&secret(), &header, BODY, at(now))),
                "the signature's timestamp is outside the tolerance",
                "{now}"
            );
        }
        // Extreme timestamps do not overflow.
        let header = sign_notification(&secret(), i64::MIN, BODY);
        assert!(verify(&secret(), &header, BODY, at(t)).is_err());
    }

    #[test]
    fn headers_missing_parts_are_refused() {
        let t = 1_700_000_000;
        let good = sign_notification(&secret(), t, BODY);
        let v1 = good.split_once(",v1=").unwrap().1.to_string();
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "the Stripe-Signature header is missing"),
            ("   ".into(), "the Stripe-Signature header is missing"),
            (v1.clone(), "the Stripe-Signature header is malformed"),
            (
                format!("v1={v1}"),
                "the Stripe-Signature header has no timestamp",
            ),
            (
                "t=1700000000".into(),
                "the Stripe-Signature header has no v1 signature",
            ),
            (
                format!("t=1700000000,v0={v1}"),
                "the Stripe-Signature header has no v1 signature",
            ),
            (
                format!("t=soon,v1={v1}"),
                "the signature's timestamp is not a number",
            ),
            (
                format!("t=1700000000,t=1700000000,v1={v1}"),
                "the Stripe-Signature header has two timestamps",
            ),
            (
                format!("t=1700000000,,v1={v1}"),
                "the Stripe-Signature header is malformed",
            ),
        ];
        for (header, expected) in cases {
            assert_eq!(
                reason(verify(&secret(), &header, BODY, at(t))),
                expected,
                "{header:?}"
            );
        }
    }

    #[test]
    fn non_hex_signatures_are_refused() {
        let t = 1_700_000_000;
        let good = sign_notification(&secret(), t, BODY);
        let v1 = good.split_once(",v1=").unwrap().1;
        let mut bad = v1.to_string();
        bad.replace_range(0..1, "z");
        for header in [
            format!("t={t},v1={bad}"),
            format!("t={t},v1={}", &v1[1..]),
            format!("t={t},v1="),
        ] {
            assert!(verify(&secret(), &header, BODY, at(t)).is_err(), "{header}");
        }
        assert_eq!(
            reason(verify(&secret(), &format!("t={t},v1={bad}"), BODY, at(t))),
            "a v1 signature is not hexadecimal"
        );
        // Hex of the wrong length is simply no match.
        assert_eq!(
            reason(verify(&secret(), &format!("t={t},v1=abcd"), BODY, at(t))),
            "no v1 signature matches"
        );
        // Upper-case hex is hex.
        let upper = format!("t={t},v1={}", v1.to_uppercase());
        assert_eq!(verify(&secret(), &upper, BODY, at(t)), Ok(()));
    }

    #[test]
    fn one_matching_v1_among_several_is_enough() {
        let t = 1_700_000_000;
        let good = sign_notification(&secret(), t, BODY);
        let v1 = good.split_once(",v1=").unwrap().1;
        let old = sign_notification(&Secret::new("whsec_rolled"), t, BODY);
        let old_v1 = old.split_once(",v1=").unwrap().1;
        let zeros = "0".repeat(64);
        for header in [
            format!("t={t},v1={old_v1},v1={v1}"),
            format!("t={t},v1={v1},v1={old_v1}"),
            format!("v1={zeros},t={t},v0={zeros},v1={v1},v2=whatever"),
        ] {
            assert_eq!(verify(&secret(), &header, BODY, at(t)), Ok(()), "{header}");
        }
        let none = format!("t={t},v1={old_v1},v1={zeros}");
        assert_eq!(
            reason(verify(&secret(), &none, BODY, at(t))),
            "no v1 signature matches"
        );
    }
}
