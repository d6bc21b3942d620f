//! pi-ai integration tests: one binary, modules per area.

mod auth;
mod corpus;
mod corpus_anthropic;
mod corpus_google;
mod corpus_openai_completions;
mod corpus_openai_responses;
mod fuzz_partial_json;
mod fuzz_retry;
mod fuzz_streams;
mod http_adapters;
mod http_faults;
mod http_retry;
mod http_support;
mod model_resolve;
mod models;
mod request_bodies;
