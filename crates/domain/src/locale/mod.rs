//! Locales (SPEC §16): the languages customers read their documents in.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    En,
    Es,
    Fr,
    De,
    Nl,
    Pt,
}

impl Locale {
    pub const DEFAULT: Locale = Locale::En;
    const ALL: [Locale; 6] = [
        Locale::En,
        Locale::Es,
        Locale::Fr,
        Locale::De,
        Locale::Nl,
        Locale::Pt,
    ];

    pub fn all() -> impl Iterator<Item = Locale> {
        Self::ALL.into_iter()
    }

    pub fn parse(code: &str) -> Option<Locale> {
        Self::all().find(|l| l.code() == code)
    }

    pub fn code(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Es => "es",
            Locale::Fr => "fr",
            Locale::De => "de",
            Locale::Nl => "nl",
            Locale::Pt => "pt",
        }
    }
}
