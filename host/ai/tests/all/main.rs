//! pi-ai integration tests: one binary, modules per area.

mod corpus;
