//! The validity period of an X.509 certificate (RFC 5280 §4.1), read with yasna: rcgen already
//! brings it in to write certificates, so reading them back adds no crate. Only the generated
//! certificate is read this way; everything else about certificates is left to rustls.
//!
//! Self-contained (yasna and time only) so that the end-to-end tests can include it by path.

use time::OffsetDateTime;
use yasna::tags::TAG_UTCTIME;
use yasna::{ASN1Result, BERReader, Tag};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validity {
    pub not_before: OffsetDateTime,
    pub not_after: OffsetDateTime,
}

/// The validity of a DER certificate.
pub fn read(der: &[u8]) -> ASN1Result<Validity> {
    yasna::parse_der(der, |r| {
        r.read_sequence(|cert| {
            let validity = cert.next().read_sequence(|tbs| {
                // version [0] EXPLICIT is absent from v1 certificates.
                tbs.read_optional(|r| r.read_tagged(Tag::context(0), |r| r.read_der()))?;
                tbs.next().read_der()?; // serialNumber
                tbs.next().read_der()?; // signature algorithm
                tbs.next().read_der()?; // issuer
                let validity = tbs.next().read_sequence(|v| {
                    Ok(Validity {
                        not_before: time(v.next())?,
                        not_after: time(v.next())?,
                    })
                })?;
                // The reader insists that a sequence is read to its end: skip the subject, the
                // key and whatever optional fields follow.
                while tbs.read_optional(|r| r.read_der())?.is_some() {}
                Ok(validity)
            })?;
            cert.next().read_der()?; // signatureAlgorithm
            cert.next().read_der()?; // signatureValue
            Ok(validity)
        })
    })
}

/// RFC 5280's `Time`: UTCTime before 2050, GeneralizedTime from then on.
fn time(r: BERReader) -> ASN1Result<OffsetDateTime> {
    if r.lookahead_tag()? == TAG_UTCTIME {
        Ok(*r.read_utctime()?.datetime())
    } else {
        Ok(*r.read_generalized_time()?.datetime())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::{Date, Month};

    fn utc(year: i32, month: Month, day: u8, hms: (u8, u8, u8)) -> OffsetDateTime {
        Date::from_calendar_date(year, month, day)
            .unwrap()
            .with_hms(hms.0, hms.1, hms.2)
            .unwrap()
            .assume_utc()
    }

    fn certificate(not_before: OffsetDateTime, not_after: OffsetDateTime) -> Vec<u8> {
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.not_before = not_before;
        params.not_after = not_after;
        let key = rcgen::KeyPair::generate().unwrap();
        params.self_signed(&key).unwrap().der().to_vec()
    }

    #[test]
    fn reads_both_time_encodings() {
        for (not_before, not_after) in [
            (
                utc(2025, Month::March, 1, (12, 34, 56)),
                utc(2026, Month::March, 1, (12, 34, 56)),
            ),
            // From 2050 on, RFC 5280 switches to GeneralizedTime.
            (
                utc(2049, Month::June, 1, (0, 0, 0)),
                utc(2051, Month::January, 2, (3, 4, 5)),
            ),
        ] {
            let der = certificate(not_before, not_after);
            assert_eq!(
                read(&der).unwrap(),
                Validity {
                    not_before,
                    not_after
                }
            );
        }
    }

    #[test]
    fn refuses_what_is_not_a_certificate() {
        let der = certificate(
            utc(2025, Month::January, 1, (0, 0, 0)),
            utc(2026, Month::January, 1, (0, 0, 0)),
        );
        assert!(read(&der[..der.len() - 1]).is_err());
        assert!(read(b"not a certificate").is_err());
        assert!(read(&[]).is_err());
    }
}
