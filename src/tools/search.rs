//! The tool search index: BM25 over each tool's name words (the `mcp__server__`
//! prefix dropped), its source, its description and its top-level parameters
//! (names and descriptions), English-stemmed, each field weighted. A query
//! is widened with a thesaurus of the words people use for the same thing
//! (`thesaurus.txt`, at a lower weight), and a word no tool has is matched
//! to one a letter away (a typo). An exact name match ranks first; equal
//! scores are ordered by name, so results are deterministic. Built once per
//! catalog change, queried many times.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};

use super::query::{each_word, is_stopword, thesaurus, within_one};
pub use super::query::{intent, words};

use crate::util::hash::FnvMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Name words count this many times: a word in the name says more about a
/// tool than the same word somewhere in its description.
const NAME_WEIGHT: u32 = 2;
/// The server's name: a request that names the service ("on GitHub")
/// should find that service's tools.
const SOURCE_WEIGHT: u32 = 2;
/// A query word found only through the thesaurus counts this much of a
/// word the user wrote.
const SYNONYM_WEIGHT: f64 = 0.7;
/// How much more the tools of a service the request names count.
const SOURCE_NAMED: f64 = 1.3;
/// How much a tool whose name words all appear in the query gains.
const NAME_COVER: f64 = 1.0;
/// How much more a tool gains whose name is the request's words exactly
/// ("list projects" for `list_projects`): among hundreds of tools named
/// with the same few verbs and nouns, that is the one asked for.
const NAME_EXACT: f64 = 2.0;
/// Words of one query looked up as typos, at most.
const MAX_TYPOS: usize = 8;
/// A query word matched to a tool word a letter away counts this much.
const TYPO_WEIGHT: f64 = 0.7;

/// What the index needs of a tool.
pub struct Doc<'a> {
    pub name: &'a str,
    /// The name without its `mcp__server__` / `connectors__` prefix.
    pub bare_name: &'a str,
    pub source: &'a str,
    pub description: &'a str,
    /// Top-level parameter names and their descriptions.
    pub params: Vec<&'a str>,
}

pub struct SearchIndex {
    stemmer: Stemmer,
    /// Lowercase word → term id (stemming is the costly part of a build, and
    /// tool texts repeat the same words endlessly, so each word is stemmed once).
    word_terms: FnvMap<String, Option<u32>>,
    /// Stem → term id.
    stems: FnvMap<String, u32>,
    /// term id → (doc, weighted term frequency)
    postings: Vec<Vec<(u32, u32)>>,
    doc_len: Vec<u32>,
    avg_len: f64,
    names: Vec<String>,
    bare: Vec<String>,
    /// Each tool's name terms, for how much of its name a query covers.
    name_terms: Vec<Vec<u32>>,
    /// Each tool's source (server) name terms.
    source_terms: Vec<Vec<u32>>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SearchIndex({} docs)", self.names.len())
    }
}

impl SearchIndex {
    /// The term id of a word, adding it to the vocabulary; `None` for stopwords.
    fn intern(&mut self, word: &str) -> Option<u32> {
        if let Some(t) = self.word_terms.get(word) {
            return *t;
        }
        let term = if is_stopword(word) {
            None
        } else {
            let stem = self.stemmer.stem(word).into_owned();
            let next = self.stems.len() as u32;
            let id = *self.stems.entry(stem).or_insert(next);
            if id as usize == self.postings.len() {
                self.postings.push(Vec::new());
            }
            Some(id)
        };
        self.word_terms.insert(word.to_string(), term);
        term
    }

    /// The term ids of `text`'s words, in order (stopwords left out).
    fn intern_all(&mut self, text: &str, buf: &mut String, out: &mut Vec<u32>) {
        let mut words = std::mem::take(buf);
        each_word(text, &mut words, |w| out.extend(self.intern(w)));
        *buf = words;
    }

    fn stem_term(&self, stem: &str) -> Option<u32> {
        self.stems.get(stem).copied()
    }

    /// A tool word one edit from `word` (long words only: short ones are
    /// too close to too many others): the one in the most tools, then the
    /// alphabetically first.
    fn near(&self, word: &str) -> Option<u32> {
        if word.chars().count() < 5 || word.bytes().any(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut best: Option<(usize, &str, u32)> = None;
        for (w, t) in &self.word_terms {
            let Some(t) = t else { continue };
            if !within_one(word, w) {
                continue;
            }
            let docs = self.postings[*t as usize].len();
            let better = best.is_none_or(|(d, b, _)| docs > d || (docs == d && w.as_str() < b));
            if better {
                best = Some((docs, w, *t));
            }
        }
        best.map(|(_, _, t)| t)
    }

    /// Weighted term ids of a query: its own words (a typo matched to the
    /// nearest tool word), then their thesaurus groups at a lower weight.
    fn lookup(&self, text: &str) -> Vec<(u32, f64)> {
        let mut weights: HashMap<u32, f64> = HashMap::new();
        let mut add = |t: u32, w: f64| {
            let e = weights.entry(t).or_insert(0.0);
            *e = e.max(w);
        };
        let tokens = words(text);
        let stems: Vec<String> = tokens
            .iter()
            .map(|w| self.stemmer.stem(w).into_owned())
            .collect();
        let mut typos = 0;
        for (k, (w, stem)) in tokens.iter().zip(&stems).enumerate() {
            if is_stopword(w) || tokens[..k].contains(w) {
                continue;
            }
            match self.word_terms.get(w) {
                Some(Some(t)) => add(*t, 1.0),
                Some(None) => {}
                None => match self.stem_term(stem) {
                    Some(t) => add(t, 1.0),
                    // A few typo lookups a query: each scans the vocabulary.
                    None if typos < MAX_TYPOS => {
                        typos += 1;
                        if let Some(t) = self.near(w) {
                            add(t, TYPO_WEIGHT);
                        }
                    }
                    None => {}
                },
            }
        }
        let th = thesaurus();
        for i in 0..stems.len() {
            for len in 1..=th.longest.min(stems.len() - i) {
                let key = stems[i..i + len].join(" ");
                // A single stopword ("in", "to") widens nothing.
                if len == 1 && is_stopword(&tokens[i]) {
                    continue;
                }
                let Some(groups) = th.groups_of.get(&key) else {
                    continue;
                };
                for g in groups {
                    for entry in &th.groups[*g] {
                        for stem in entry {
                            if let Some(t) = self.stem_term(stem) {
                                add(t, SYNONYM_WEIGHT);
                            }
                        }
                    }
                }
            }
        }
        let mut out: Vec<(u32, f64)> = weights.into_iter().collect();
        out.sort_unstable_by_key(|(t, _)| *t);
        out
    }

    pub fn build(docs: &[Doc<'_>]) -> SearchIndex {
        let mut idx = SearchIndex {
            stemmer: Stemmer::create(Algorithm::English),
            word_terms: FnvMap::default(),
            stems: FnvMap::default(),
            postings: Vec::new(),
            doc_len: Vec::with_capacity(docs.len()),
            avg_len: 0.0,
            names: docs.iter().map(|d| d.name.to_string()).collect(),
            bare: docs.iter().map(|d| d.bare_name.to_lowercase()).collect(),
            name_terms: Vec::with_capacity(docs.len()),
            source_terms: Vec::with_capacity(docs.len()),
        };
        let mut total = 0u64;
        let mut tf: Vec<(u32, u32)> = Vec::new();
        let mut buf = String::new();
        let mut terms: Vec<u32> = Vec::new();
        for (i, d) in docs.iter().enumerate() {
            tf.clear();
            // Name and source once each: their terms serve the frequencies
            // and the name-cover and service-named checks alike.
            terms.clear();
            idx.intern_all(d.bare_name, &mut buf, &mut terms);
            tf.extend(terms.iter().map(|t| (*t, NAME_WEIGHT)));
            let mut name = terms.clone();
            name.sort_unstable();
            name.dedup();
            idx.name_terms.push(name);
            terms.clear();
            idx.intern_all(d.source, &mut buf, &mut terms);
            tf.extend(terms.iter().map(|t| (*t, SOURCE_WEIGHT)));
            idx.source_terms.push(terms.clone());
            terms.clear();
            for text in std::iter::once(d.description).chain(d.params.iter().copied()) {
                idx.intern_all(text, &mut buf, &mut terms);
            }
            tf.extend(terms.iter().map(|t| (*t, 1)));
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
        self.scored(query, limit)
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    }

    /// [`search`](Self::search) with each hit's score.
    pub fn scored(&self, query: &str, limit: usize) -> Vec<(&str, f64)> {
        let q = query.trim();
        let ql = q.to_lowercase();
        let n = self.names.len() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        let terms = self.lookup(&intent(q));
        for &(t, weight) in &terms {
            let post = &self.postings[t as usize];
            let df = post.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in post {
                let tf = f64::from(tf);
                let norm =
                    K1 * (1.0 - B + B * f64::from(self.doc_len[doc as usize]) / self.avg_len);
                *scores.entry(doc).or_default() += weight * idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        // The words the user wrote (not synonyms or typo guesses).
        let own: Vec<u32> = terms
            .iter()
            .filter(|(_, w)| *w >= 1.0)
            .map(|(t, _)| *t)
            .collect();
        // A tool whose name the request covers is what it asks for: the
        // name is the tool's own summary of what it does.
        for (doc, score) in scores.iter_mut() {
            let name = &self.name_terms[*doc as usize];
            if name.is_empty() {
                continue;
            }
            let covered: f64 = name
                .iter()
                .filter_map(|t| {
                    terms
                        .binary_search_by_key(t, |(term, _)| *term)
                        .ok()
                        .map(|i| terms[i].1)
                })
                .sum();
            *score *= 1.0 + NAME_COVER * covered / name.len() as f64;
            // `own` is sorted and deduplicated, as `name` is.
            if !own.is_empty() && own == *name {
                *score *= 1.0 + NAME_EXACT;
            }
            // The request names the service ("on GitHub", "in Notion").
            let named = self.source_terms[*doc as usize].iter().any(|t| {
                terms
                    .binary_search_by_key(t, |(term, _)| *term)
                    .is_ok_and(|i| terms[i].1 >= 1.0)
            });
            if named {
                *score *= SOURCE_NAMED;
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
            .map(|(i, score)| (self.names[i as usize].as_str(), score))
            .collect()
    }
}

/// Hits of a turn's opening words looked at for the warm-up.
const PREDICT_HITS: usize = 10;
/// The score a hit needs before its server is started on a guess: below
/// it, the words share no more than a common word with the tool.
pub const PREDICT_MIN_SCORE: f64 = 12.0;
/// A server's best hit must score this share of the best hit overall.
const PREDICT_NEAR_BEST: f64 = 0.75;

/// The tools a user's own words point at, for starting their servers while
/// the model thinks: each server's best hit, for the servers whose best hit
/// is strong and close to the best overall (two servers with the same
/// catalog tie, and both are started).
pub fn predict(index: &SearchIndex, text: &str) -> Vec<String> {
    predict_above(index, text, PREDICT_MIN_SCORE)
}

/// [`predict`] with the score a hit needs given (for measuring the choice).
pub fn predict_above(index: &SearchIndex, text: &str, min_score: f64) -> Vec<String> {
    let hits = index.scored(text, PREDICT_HITS);
    let Some(best) = hits.first().map(|(_, s)| *s) else {
        return Vec::new();
    };
    let floor = min_score.max(best * PREDICT_NEAR_BEST);
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for (name, score) in hits {
        let server = crate::call::names::server_part(name);
        if score >= floor && !seen.contains(&server) {
            seen.push(server);
            out.push(name.to_string());
        }
    }
    out
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

    #[test]
    fn a_request_in_its_own_words_reaches_the_tools_words() {
        let docs = vec![
            doc(
                "mcp__gh__create_issue",
                "create_issue",
                "Create a new issue in a repository.",
                vec!["owner", "repo", "title"],
            ),
            doc(
                "mcp__gh__list_commits",
                "list_commits",
                "List commits of a branch.",
                vec!["owner", "repo"],
            ),
            doc(
                "mcp__k8s__kubectl_delete",
                "kubectl_delete",
                "Delete Kubernetes resources.",
                vec!["name"],
            ),
        ];
        let idx = SearchIndex::build(&docs);
        // No word of the tool's own: the thesaurus carries "ticket" to
        // "issue" and "nuke" to "delete".
        assert_eq!(idx.search("file a ticket", 1), ["mcp__gh__create_issue"]);
        assert_eq!(idx.search("nuke that pod", 1), ["mcp__k8s__kubectl_delete"]);
        // A typo a letter off still finds the word.
        assert_eq!(idx.search("list comits", 1), ["mcp__gh__list_commits"]);
    }

    #[test]
    fn predictions_name_each_close_server_once_and_skip_weak_hits() {
        let docs = vec![
            doc(
                "mcp__a__read_text_file",
                "read_text_file",
                "Read a text file.",
                vec!["path"],
            ),
            doc(
                "mcp__b__read_text_file",
                "read_text_file",
                "Read a text file.",
                vec!["path"],
            ),
            doc(
                "mcp__a__write_file",
                "write_file",
                "Write a file.",
                vec!["path"],
            ),
        ];
        let idx = SearchIndex::build(&docs);
        // Two servers with the same catalog tie: both are named, each once.
        assert_eq!(
            predict_above(&idx, "read the text file", 0.0),
            ["mcp__a__read_text_file", "mcp__b__read_text_file"]
        );
        assert!(predict_above(&idx, "read the text file", 1e9).is_empty());
        assert!(predict(&idx, "good morning").is_empty());
    }
}
