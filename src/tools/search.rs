//! The tool search index: BM25 over each tool's name words (the `mcp__server__`
//! prefix dropped), its source, its description and its top-level parameter
//! names, English-stemmed. An exact name match ranks first; equal scores are
//! ordered by name, so results are deterministic. Built once per catalog
//! change, queried many times.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Name words count this many times: a word in the name says more about a
/// tool than the same word somewhere in its description.
const NAME_WEIGHT: u32 = 3;

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "of",
    "on", "or", "that", "the", "this", "to", "with", "me", "my", "i", "you", "your",
];

/// What the index needs of a tool.
pub struct Doc<'a> {
    pub name: &'a str,
    /// The name without its `mcp__server__` / `connectors__` prefix.
    pub bare_name: &'a str,
    pub source: &'a str,
    pub description: &'a str,
    pub params: Vec<&'a str>,
}

pub struct SearchIndex {
    stemmer: Stemmer,
    /// Lowercase word → term id (stemming is the costly part of a build, and
    /// tool texts repeat the same words endlessly, so each word is stemmed once).
    word_terms: HashMap<String, Option<u32>>,
    /// Stem → term id.
    stems: HashMap<String, u32>,
    /// term id → (doc, weighted term frequency)
    postings: Vec<Vec<(u32, u32)>>,
    doc_len: Vec<u32>,
    avg_len: f64,
    names: Vec<String>,
    bare: Vec<String>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SearchIndex({} docs)", self.names.len())
    }
}

/// Splits into lowercase words at non-alphanumerics and camelCase humps.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl SearchIndex {
    /// The term id of a word, adding it to the vocabulary; `None` for stopwords.
    fn intern(&mut self, word: String) -> Option<u32> {
        if let Some(t) = self.word_terms.get(&word) {
            return *t;
        }
        let term = if STOPWORDS.contains(&word.as_str()) {
            None
        } else {
            let stem = self.stemmer.stem(&word).into_owned();
            let next = self.stems.len() as u32;
            let id = *self.stems.entry(stem).or_insert(next);
            if id as usize == self.postings.len() {
                self.postings.push(Vec::new());
            }
            Some(id)
        };
        self.word_terms.insert(word, term);
        term
    }

    /// Term ids of a query; words never seen in any tool are skipped.
    fn lookup(&self, text: &str) -> Vec<u32> {
        let mut out: Vec<u32> = words(text)
            .into_iter()
            .filter_map(|w| match self.word_terms.get(&w) {
                Some(t) => *t,
                None if STOPWORDS.contains(&w.as_str()) => None,
                None => self.stems.get(self.stemmer.stem(&w).as_ref()).copied(),
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    pub fn build(docs: &[Doc<'_>]) -> SearchIndex {
        let mut idx = SearchIndex {
            stemmer: Stemmer::create(Algorithm::English),
            word_terms: HashMap::new(),
            stems: HashMap::new(),
            postings: Vec::new(),
            doc_len: Vec::with_capacity(docs.len()),
            avg_len: 0.0,
            names: docs.iter().map(|d| d.name.to_string()).collect(),
            bare: docs.iter().map(|d| d.bare_name.to_lowercase()).collect(),
        };
        let mut total = 0u64;
        let mut tf: Vec<(u32, u32)> = Vec::new();
        for (i, d) in docs.iter().enumerate() {
            tf.clear();
            for w in words(d.bare_name) {
                if let Some(t) = idx.intern(w) {
                    tf.push((t, NAME_WEIGHT));
                }
            }
            let rest = [d.source, d.description]
                .into_iter()
                .chain(d.params.iter().copied());
            for text in rest {
                for w in words(text) {
                    if let Some(t) = idx.intern(w) {
                        tf.push((t, 1));
                    }
                }
            }
            tf.sort_unstable_by_key(|(t, _)| *t);
            let mut len = 0u32;
            let mut k = 0;
            while k < tf.len() {
                let term = tf[k].0;
                let mut f = 0;
                while k < tf.len() && tf[k].0 == term {
                    f += tf[k].1;
                    k += 1;
                }
                len += f;
                idx.postings[term as usize].push((i as u32, f));
            }
            total += u64::from(len);
            idx.doc_len.push(len);
        }
        idx.avg_len = if docs.is_empty() {
            1.0
        } else {
            (total as f64 / docs.len() as f64).max(1.0)
        };
        idx
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The best `limit` tool names for `query`, best first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<&str> {
        let q = query.trim();
        let ql = q.to_lowercase();
        let n = self.names.len() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for t in self.lookup(q) {
            let post = &self.postings[t as usize];
            let df = post.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in post {
                let tf = f64::from(tf);
                let norm =
                    K1 * (1.0 - B + B * f64::from(self.doc_len[doc as usize]) / self.avg_len);
                *scores.entry(doc).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        // An exact name (full or bare) outranks any score.
        for (i, name) in self.names.iter().enumerate() {
            if name.eq_ignore_ascii_case(q) || self.bare[i] == ql {
                scores.insert(i as u32, f64::INFINITY);
            }
        }
        let mut ranked: Vec<(u32, f64)> = scores.into_iter().filter(|(_, s)| *s > 0.0).collect();
        ranked.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.names[a.0 as usize].cmp(&self.names[b.0 as usize]))
        });
        ranked
            .into_iter()
            .take(limit)
            .map(|(i, _)| self.names[i as usize].as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(name: &'a str, bare: &'a str, desc: &'a str, params: Vec<&'a str>) -> Doc<'a> {
        Doc {
            name,
            bare_name: bare,
            source: "srv",
            description: desc,
            params,
        }
    }

    #[test]
    fn words_split_snake_kebab_and_camel_case() {
        assert_eq!(words("read_text-file"), ["read", "text", "file"]);
        assert_eq!(words("getCurrentTime"), ["get", "current", "time"]);
        assert_eq!(words("HTTPServer v2"), ["httpserver", "v2"]);
    }

    #[test]
    fn stemming_and_name_weight_rank_the_intended_tool() {
        let docs = vec![
            doc(
                "mcp__fs__read_file",
                "read_file",
                "Read the contents of a file.",
                vec!["path"],
            ),
            doc(
                "mcp__fs__write_file",
                "write_file",
                "Write a file; creates it when missing. Reading is elsewhere.",
                vec!["path", "content"],
            ),
            doc(
                "mcp__time__get_current_time",
                "get_current_time",
                "Current time in a timezone.",
                vec!["timezone"],
            ),
        ];
        let idx = SearchIndex::build(&docs);
        assert_eq!(idx.search("reading files", 3)[0], "mcp__fs__read_file");
        assert_eq!(
            idx.search("what time is it in Tokyo timezone", 1),
            ["mcp__time__get_current_time"]
        );
        assert!(idx.search("zebra", 3).is_empty());
    }

    #[test]
    fn exact_names_win_and_ties_break_by_name() {
        let docs = vec![
            doc("mcp__b__echo", "echo", "Echo text.", vec![]),
            doc("mcp__a__echo", "echo", "Echo text.", vec![]),
            doc(
                "mcp__c__shout",
                "shout",
                "Echo text loudly, echo echo echo.",
                vec![],
            ),
        ];
        let idx = SearchIndex::build(&docs);
        assert_eq!(idx.search("mcp__c__shout", 1), ["mcp__c__shout"]);
        // Both bare `echo` tools are exact; the tie goes by name.
        assert_eq!(idx.search("echo", 2), ["mcp__a__echo", "mcp__b__echo"]);
        assert_eq!(idx.search("echo", 3), idx.search("echo", 3));
    }
}
