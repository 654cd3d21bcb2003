//! The identifiers of electronic addresses whose schemes define a check (a check digit or a fixed
//! form), and the schemes Peppol delivers to. The checks are those of OpenPeppol's rules
//! (PEPPOL-COMMON-R040 to R050) and, where a scheme's own definition is stricter (Swedish and
//! French numbers carry a Luhn digit), the scheme's, so that an address accepted here is one a
//! Peppol access point accepts.

/// A scheme whose identifiers can be told wrong from their characters alone.
#[derive(Clone, Copy, Debug)]
pub struct CheckedScheme {
    /// The EAS code (`0208`).
    pub scheme: &'static str,
    /// The Peppol rule that checks it, or the scheme's definition where Peppol has none.
    pub rule: &'static str,
    /// The English sentence of the API's 422.
    pub english: &'static str,
    valid: fn(&str) -> bool,
}

const CHECKED: &[CheckedScheme] = &[
    CheckedScheme {
        scheme: "0002",
        rule: "SIREN",
        english: "must be a SIREN number: 9 digits, the last a check digit",
        valid: |id| digits(id, 9) && luhn(id),
    },
    CheckedScheme {
        scheme: "0007",
        rule: "PEPPOL-COMMON-R049",
        english: "must be a Swedish organisation number: 10 digits, the last a check digit",
        valid: |id| digits(id, 10) && luhn(id),
    },
    CheckedScheme {
        scheme: "0009",
        rule: "SIRET",
        english: "must be a SIRET number: 14 digits, the last a check digit",
        valid: siret,
    },
    CheckedScheme {
        scheme: "0088",
        rule: "PEPPOL-COMMON-R040",
        english: "must be a GLN: 13 digits, the last a GS1 check digit",
        valid: |id| digits(id, 13) && gs1(id),
    },
    CheckedScheme {
        scheme: "0151",
        rule: "PEPPOL-COMMON-R050",
        english: "must be an Australian Business Number: 11 digits with their check",
        valid: |id| digits(id, 11) && abn(id),
    },
    CheckedScheme {
        scheme: "0184",
        rule: "PEPPOL-COMMON-R042",
        english: "must be a Danish CVR number written DK and 8 digits",
        valid: |id| id.strip_prefix("DK").is_some_and(|n| digits(n, 8)),
    },
    CheckedScheme {
        scheme: "0192",
        rule: "PEPPOL-COMMON-R041",
        english: "must be a Norwegian organisation number: 9 digits, the last a check digit",
        valid: |id| digits(id, 9) && mod11(id),
    },
    CheckedScheme {
        scheme: "0201",
        rule: "PEPPOL-COMMON-R044",
        english: "must be an Italian IPA code: 6 letters or digits",
        valid: |id| id.len() == 6 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
    },
    CheckedScheme {
        scheme: "0208",
        rule: "PEPPOL-COMMON-R043",
        english: "must be a Belgian enterprise number: 10 digits, the last two a check on the \
                  first eight",
        valid: belgian_enterprise,
    },
    CheckedScheme {
        scheme: "0210",
        rule: "PEPPOL-COMMON-R045",
        english: "must be an Italian codice fiscale: 16 characters ending in their check letter, or a company's 11 digits",
        valid: codice_fiscale,
    },
    CheckedScheme {
        scheme: "0211",
        rule: "PEPPOL-COMMON-R047",
        english: "must be an Italian VAT number written IT and 11 digits with their check",
        valid: |id| {
            id.strip_prefix("IT")
                .is_some_and(|n| digits(n, 11) && luhn(n))
        },
    },
    CheckedScheme {
        scheme: "9925",
        rule: "9925",
        english: "must be a Belgian VAT number: BE and the 10 digits of the enterprise number",
        valid: |id| id.strip_prefix("BE").is_some_and(belgian_enterprise),
    },
];

/// The check of `scheme`'s identifiers, if it has one.
pub fn checked_scheme(scheme: &str) -> Option<&'static CheckedScheme> {
    CHECKED.iter().find(|c| c.scheme == scheme)
}

/// The check `id` fails in `scheme`, if any.
pub fn identifier_fault(scheme: &str, id: &str) -> Option<&'static CheckedScheme> {
    checked_scheme(scheme).filter(|c| !(c.valid)(id))
}

/// `id` as the scheme writes it: the spaces, dots and dashes people type in numbers dropped,
/// letters in upper case. Schemes without a check keep what was typed (an email address, a
/// Leitweg-ID with its dashes).
pub fn normalise_identifier(scheme: &str, id: &str) -> String {
    let id = id.trim();
    if checked_scheme(scheme).is_none() {
        return id.to_string();
    }
    id.chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '/'))
        .flat_map(char::to_uppercase)
        .collect()
}

/// On Peppol's list of electronic address schemes (PEPPOL-EN16931-CL008): a participant
/// identifier a Peppol access point can route to. `EM` (email) is not one.
pub fn is_peppol_scheme(scheme: &str) -> bool {
    let list = include_str!("codes/peppol_eas.txt");
    !scheme.is_empty() && list.lines().any(|l| l == scheme)
}

fn digits(id: &str, n: usize) -> bool {
    id.len() == n && id.bytes().all(|b| b.is_ascii_digit())
}

fn value(b: u8) -> u32 {
    u32::from(b - b'0')
}

/// Luhn (ISO/IEC 7812-1) over all of `id`'s digits, the last being the check.
fn luhn(id: &str) -> bool {
    let sum: u32 = id
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = value(b);
            match (i % 2 == 1, d * 2) {
                (true, twice) if twice > 9 => twice - 9,
                (true, twice) => twice,
                (false, _) => d,
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// GS1's check digit (GLN, GTIN): weights 3 and 1 from the right, before the check.
fn gs1(id: &str) -> bool {
    let (body, check) = id.split_at(id.len() - 1);
    let sum: u32 = body
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| value(b) * if i % 2 == 0 { 3 } else { 1 })
        .sum();
    (10 - sum % 10) % 10 == value(check.as_bytes()[0])
}

/// Norway's modulus 11: weights 2 to 7 from the right, before the check; a remainder that
/// would need a check digit of 10 is no number at all.
fn mod11(id: &str) -> bool {
    let (body, check) = id.split_at(id.len() - 1);
    let sum: u32 = body
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| value(b) * (i as u32 % 6 + 2))
        .sum();
    id.bytes().any(|b| b != b'0') && (11 - sum % 11) % 11 == value(check.as_bytes()[0])
}

/// Belgium's enterprise number: the last two digits are 97 less the first eight modulo 97.
fn belgian_enterprise(id: &str) -> bool {
    if !digits(id, 10) {
        return false;
    }
    let (body, check) = id.split_at(8);
    match (body.parse::<u32>(), check.parse::<u32>()) {
        (Ok(body), Ok(check)) => 97 - body % 97 == check,
        _ => false,
    }
}

/// SIRET: Luhn over the 14 digits; La Poste's establishments (SIREN 356000000), numbered past
/// what Luhn allows, sum their digits to a multiple of 5 instead.
fn siret(id: &str) -> bool {
    digits(id, 14)
        && (luhn(id)
            || (id.starts_with("356000000")
                && id.bytes().map(value).sum::<u32>().is_multiple_of(5)))
}

/// The Australian Business Number: the first digit less one, weights 10, 1, 3 … 19, modulo 89.
fn abn(id: &str) -> bool {
    const WEIGHTS: [u32; 11] = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
    let sum: u32 = id
        .bytes()
        .zip(WEIGHTS)
        .enumerate()
        .map(|(i, (b, w))| (value(b) + if i == 0 { 9 } else { 0 }) % 10 * w)
        .sum();
    id.as_bytes()[0] != b'0' && sum.is_multiple_of(89)
}

/// Italy's codice fiscale: a company's 11 digits (the VAT number's, with its Luhn digit), or a
/// person's 16 characters, letters and digits in their places, the last a check letter over the
/// first fifteen (odd places by the decree's table, even places by their value, modulo 26).
fn codice_fiscale(id: &str) -> bool {
    if digits(id, 11) {
        return luhn(id);
    }
    let b = id.as_bytes();
    let letter = |i: usize| b[i].is_ascii_uppercase();
    let digit = |i: usize| b[i].is_ascii_digit();
    let form = id.len() == 16
        && id
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && (0..6).all(letter)
        && digit(6)
        && digit(7)
        && letter(8)
        && digit(9)
        && digit(10)
        && digit(14)
        && letter(15);
    if !form {
        return false;
    }
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    let rank = |c: u8| {
        u32::from(if c.is_ascii_digit() {
            c - b'0'
        } else {
            c - b'A'
        })
    };
    let sum: u32 = b[..15]
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if i % 2 == 0 {
                ODD[rank(c) as usize]
            } else {
                rank(c)
            }
        })
        .sum();
    u32::from(b[15] - b'A') == sum % 26
}
