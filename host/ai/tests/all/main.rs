//! pi-ai integration tests: one binary, modules per area.

mod corpus;
mod corpus_openai_completions;
mod corpus_openai_responses;
