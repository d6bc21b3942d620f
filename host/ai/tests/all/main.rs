//! pi-ai integration tests: one binary, modules per area.

mod auth;
mod corpus;
mod models;
