//! The WASI calls that can wait, replaced in the linker by versions bounded by the call.
//!
//! - `wasi:io/poll` (`poll`, `pollable.block`): every wait of a component goes through them —
//!   a sleep (a monotonic-clock pollable), an HTTP response, a stream. wasmtime-wasi waits
//!   as long as the pollable says; here the wait also ends at the call's deadline, or at the
//!   end of its abort grace, and the call traps with that interrupt (the epoch interrupt only
//!   fires while wasm runs).
//! - `wasi:filesystem/types` `descriptor.open-at`: opening a FIFO for reading blocks until a
//!   writer appears, and files are opened inline on the call's thread. Anything in a preopen
//!   that is not a regular file, a directory or a symlink (FIFOs, sockets, devices) is refused
//!   with `unsupported` before it is opened.
//!
//! The definitions shadow wasmtime-wasi's, under the WASI version wasmtime-wasi defines (an
//! import of an older 0.2 version resolves to it); the hostile-component tests fail if a
//! wasmtime upgrade moves that version and these stop applying.

use crate::clock::CallClock;
use crate::state::HostState;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemView};
use wasmtime_wasi::p2::DynPollable;
use wasmtime_wasi::p2::bindings::io::poll as async_poll;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    DescriptorFlags, DescriptorType, ErrorCode, HostDescriptor, OpenFlags, PathFlags,
};
use wasmtime_wasi::runtime::in_tokio;

/// The WASI 0.2 version wasmtime-wasi 48 defines its interfaces under.
pub(crate) const WASI_VERSION: &str = "0.2.12";

/// Defines the bounded calls over the ones `wasmtime_wasi::p2::add_to_linker_sync` added.
pub(crate) fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut poll = linker.instance(&format!("wasi:io/poll@{WASI_VERSION}"))?;
    poll.func_wrap("poll", poll_bounded)?;
    poll.func_wrap("[method]pollable.block", block_bounded)?;
    let mut types = linker.instance(&format!("wasi:filesystem/types@{WASI_VERSION}"))?;
    types.func_wrap("[method]descriptor.open-at", open_at_checked)?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Runs `wait` until it ends or the call's clock stops the call (then the call traps). The
/// clock is asked first: an HTTP timeout cut to the deadline fires in the same instant, and
/// the call's own deadline is the truer report.
async fn bounded<T>(
    clock: CallClock,
    wait: impl Future<Output = wasmtime::Result<T>>,
) -> wasmtime::Result<T> {
    tokio::select! {
        biased;
        interrupt = clock.reached() => Err(wasmtime::Error::new(interrupt)),
        result = wait => result,
    }
}

fn poll_bounded(
    mut store: StoreContextMut<'_, HostState>,
    (pollables,): (Vec<Resource<DynPollable>>,),
) -> wasmtime::Result<(Vec<u32>,)> {
    let state = store.data_mut();
    let clock = state.clock.clone();
    let table = &mut state.table;
    let ready = in_tokio(bounded(clock, async_poll::Host::poll(table, pollables)))?;
    Ok((ready,))
}

fn block_bounded(
    mut store: StoreContextMut<'_, HostState>,
    (pollable,): (Resource<DynPollable>,),
) -> wasmtime::Result<()> {
    let state = store.data_mut();
    let clock = state.clock.clone();
    let table = &mut state.table;
    in_tokio(bounded(
        clock,
        async_poll::HostPollable::block(table, pollable),
    ))
}

/// What can be opened without waiting for another process.
fn opens_at_once(kind: DescriptorType) -> bool {
    matches!(
        kind,
        DescriptorType::RegularFile | DescriptorType::Directory | DescriptorType::SymbolicLink
    )
}

type OpenAtParams = (
    Resource<Descriptor>,
    PathFlags,
    String,
    OpenFlags,
    DescriptorFlags,
);

fn open_at_checked(
    mut store: StoreContextMut<'_, HostState>,
    (fd, path_flags, path, open_flags, flags): OpenAtParams,
) -> wasmtime::Result<(Result<Resource<Descriptor>, ErrorCode>,)> {
    let follow = path_flags.contains(PathFlags::SYMLINK_FOLLOW);
    if crate::fs_guard::lands(store.data(), &fd, &path, follow).refuses_use() {
        tracing::warn!(extension = %store.data().extension, path, "open refused: it reaches pi's own directory");
        return Ok((Err(ErrorCode::Access),));
    }
    let writes = flags.contains(DescriptorFlags::WRITE)
        || open_flags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE);
    if writes {
        crate::fs_guard::observe_write(store.data(), &fd, &path, follow);
    }
    let mut view = store.data_mut().filesystem();
    // A path that does not exist yet (a create) has nothing to check.
    let at = Resource::new_borrow(fd.rep());
    if let Ok(stat) = HostDescriptor::stat_at(&mut view, at, path_flags, path.clone())
        && !opens_at_once(stat.type_)
    {
        tracing::debug!(path, kind = ?stat.type_, "open refused: not a regular file");
        return Ok((Err(ErrorCode::Unsupported),));
    }
    match HostDescriptor::open_at(&mut view, fd, path_flags, path, open_flags, flags) {
        Ok(opened) => Ok((Ok(opened),)),
        Err(error) => Ok((Err(error.downcast()?.into()),)),
    }
}
