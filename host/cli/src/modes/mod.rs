//! The non-interactive modes: print (text), JSON event lines and RPC.

pub mod json;
pub mod print;
pub mod rpc;
pub mod rpc_types;
