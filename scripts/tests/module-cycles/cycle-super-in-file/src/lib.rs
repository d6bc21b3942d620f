//! Fixture: `tools::a` and `tools::b` name each other through `super::` in plain files.
mod tools;
