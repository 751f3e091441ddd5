//! The search index layout, shared by the compiler (writer) and search (reader).
//!
//! The `fst` map sends each term to its number; the postings blob holds, per term, the
//! documents it occurs in with the field of the occurrence. A posting is one `u32` (document in
//! the high 16 bits, field in the next 8, flags in the low 8), so reading the
//! index at request time is arithmetic on a static byte slice, never parsing.

/// Where in a document a term was found; reported to clients as the reason for a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Field {
    Name = 0,
    ShortName = 1,
    Abbreviation = 2,
    Synonym = 3,
    Slug = 4,
    Code = 5,
    Label = 6,
    Organ = 7,
    Modality = 8,
    Issuer = 9,
    Summary = 10,
    Text = 11,
    /// An outcome document matched through its parent system's names.
    System = 12,
}

impl Field {
    const ALL: [Field; 13] = [
        Field::Name,
        Field::ShortName,
        Field::Abbreviation,
        Field::Synonym,
        Field::Slug,
        Field::Code,
        Field::Label,
        Field::Organ,
        Field::Modality,
        Field::Issuer,
        Field::Summary,
        Field::Text,
        Field::System,
    ];

    /// The field's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::ShortName => "short_name",
            Field::Abbreviation => "abbreviation",
            Field::Synonym => "synonym",
            Field::Slug => "slug",
            Field::Code => "code",
            Field::Label => "label",
            Field::Organ => "organ",
            Field::Modality => "modality",
            Field::Issuer => "issuer",
            Field::Summary => "summary",
            Field::Text => "text",
            Field::System => "system",
        }
    }

    /// How much a match in this field counts (1 to 10).
    pub fn weight(self) -> u8 {
        match self {
            Field::Name | Field::ShortName | Field::Abbreviation | Field::Code => 10,
            Field::Synonym => 8,
            Field::Slug | Field::Label => 7,
            Field::Organ => 4,
            Field::System => 4,
            Field::Modality | Field::Issuer | Field::Summary => 2,
            Field::Text => 1,
        }
    }

    fn from_u8(v: u8) -> Field {
        Field::ALL.get(v as usize).copied().unwrap_or(Field::Text)
    }
}

/// One occurrence of a term. Packed as document (16 bits), field (8 bits), flags (8 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Posting {
    pub doc: u16,
    pub field: Field,
    /// The term is the whole of the field's text ("LI-RADS" for the abbreviation "LI-RADS"),
    /// not a part of it ("LI-RADS" inside "LI-RADS TRA"): a stronger match.
    pub whole: bool,
}

impl Posting {
    /// Packs the posting into its `u32` form.
    pub fn pack(self) -> u32 {
        (self.doc as u32) << 16 | (self.field as u32) << 8 | u32::from(self.whole)
    }

    /// Unpacks a posting.
    pub fn unpack(v: u32) -> Posting {
        Posting {
            doc: (v >> 16) as u16,
            field: Field::from_u8((v >> 8) as u8),
            whole: v & 1 == 1,
        }
    }
}

/// Writes the postings blob: `n`, then `n + 1` offsets, then the packed postings (all `u32`
/// little-endian). `lists[i]` are the postings of term number `i`.
pub fn write_postings(lists: &[Vec<Posting>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend((lists.len() as u32).to_le_bytes());
    let mut offset = 0u32;
    out.extend(offset.to_le_bytes());
    for list in lists {
        offset += list.len() as u32;
        out.extend(offset.to_le_bytes());
    }
    for list in lists {
        for p in list {
            out.extend(p.pack().to_le_bytes());
        }
    }
    out
}

/// Reads the postings of term number `term` from a blob written by [`write_postings`].
pub fn read_postings(blob: &[u8], term: u64) -> impl Iterator<Item = Posting> + '_ {
    let word = |i: usize| -> u32 {
        blob.get(i * 4..i * 4 + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(0)
    };
    let n = word(0) as u64;
    let (start, end) = if term < n {
        (word(1 + term as usize), word(2 + term as usize))
    } else {
        (0, 0)
    };
    let base = 2 + n as usize;
    (start..end).map(move |i| Posting::unpack(word(base + i as usize)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_round_trip() {
        let lists = vec![
            vec![Posting {
                doc: 3,
                field: Field::Code,
                whole: true,
            }],
            vec![],
            vec![
                Posting {
                    doc: 0,
                    field: Field::Name,
                    whole: false,
                },
                Posting {
                    doc: 65535,
                    field: Field::System,
                    whole: true,
                },
            ],
        ];
        let blob = write_postings(&lists);
        for (i, list) in lists.iter().enumerate() {
            let read: Vec<Posting> = read_postings(&blob, i as u64).collect();
            assert_eq!(&read, list);
        }
        assert_eq!(read_postings(&blob, 9).count(), 0);
    }
}
