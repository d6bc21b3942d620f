//! Fixture: a cycle written from inside inline modules.
mod outer;
