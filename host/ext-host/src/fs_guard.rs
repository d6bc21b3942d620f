//! The guard of `wasi:filesystem` in front of pi's own directories: the path-taking calls of
//! `wasi:filesystem/types` are defined over wasmtime-wasi's, each asking first where its paths
//! land ([`crate::protected`]) for the call's grant, and telling the call's write observer
//! where a write goes (the files a later prompt is built from are recorded by pi-app).

use crate::protected::{Landing, landing, target};
use crate::state::HostState;
use std::os::fd::AsFd;
use wasmtime::StoreContextMut;
use wasmtime::component::{ComponentNamedList, Lift, Linker, LinkerInstance, Lower, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemCtxView, WasiFilesystemView};
use wasmtime_wasi::p2::FsResult;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    ErrorCode, HostDescriptor, NewTimestamp, PathFlags,
};

/// Where `path` from the guest's descriptor `fd` lands for this call's grant. A descriptor that
/// is not a directory makes the real call fail on its own.
pub(crate) fn lands(
    state: &HostState,
    fd: &Resource<Descriptor>,
    path: &str,
    follow: bool,
) -> Landing {
    let protected = &state.grant.protected;
    if protected.is_empty() {
        return Landing::Clear;
    }
    match state.table.get(fd) {
        Ok(Descriptor::Dir(dir)) => landing(protected, dir.dir.as_fd(), path, follow),
        _ => Landing::Clear,
    }
}

/// Tells the call's write observer (if any) where a change of `path` from `fd` lands, before
/// the change (`follow`: the change goes through a link at the end of the path).
pub(crate) fn observe_write(
    state: &HostState,
    fd: &Resource<Descriptor>,
    path: &str,
    follow: bool,
) {
    let Some(observer) = &state.call.on_write else {
        return;
    };
    if let Ok(Descriptor::Dir(dir)) = state.table.get(fd)
        && let Some(target) = target(dir.dir.as_fd(), path, follow)
    {
        observer(&target);
    }
}

/// What a call does to the path it names.
#[derive(Clone, Copy)]
enum Effect {
    /// Reads or changes the path itself.
    Use,
    /// Moves or removes it, and with it what is below it.
    Move,
}

/// Whether `call` on `path` from `fd` is refused (logged; the guest sees `access`).
fn refuses(
    state: &HostState,
    call: &str,
    (fd, path): (&Resource<Descriptor>, &str),
    follow: bool,
    effect: Effect,
) -> bool {
    let landing = lands(state, fd, path, follow);
    let refused = match effect {
        Effect::Use => landing.refuses_use(),
        Effect::Move => landing.refuses_move(),
    };
    if refused {
        tracing::warn!(
            extension = %state.extension,
            call,
            path,
            "filesystem call refused: it reaches pi's own directory"
        );
    }
    refused
}

/// [`refuses`] for a call that changes `path`; a call let through is told to the observer.
fn refuses_change(
    state: &HostState,
    call: &str,
    (fd, path): (&Resource<Descriptor>, &str),
    effect: Effect,
) -> bool {
    let refused = refuses(state, call, (fd, path), false, effect);
    if !refused {
        observe_write(state, fd, path, false);
    }
    refused
}

fn follows(flags: PathFlags) -> bool {
    flags.contains(PathFlags::SYMLINK_FOLLOW)
}

/// Defines the path-taking calls of `wasi:filesystem/types` over wasmtime-wasi's: each first asks
/// where its paths land, then runs wasmtime-wasi's own implementation. `open-at` is checked in
/// `bounded` (it is shadowed there for FIFOs) through [`lands`]; `symlink-at` is refused in
/// `component`. Hard links are refused here: no extension needs one, and a link made inside the
/// workspace to a protected file would read it from outside.
pub(crate) fn add_to_linker(
    linker: &mut Linker<HostState>,
    wasi_version: &str,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(&format!("wasi:filesystem/types@{wasi_version}"))?;
    types.func_wrap(
        "[method]descriptor.link-at",
        |_store,
         _params: (
            Resource<Descriptor>,
            PathFlags,
            String,
            Resource<Descriptor>,
            String,
        )| { Ok((Err::<(), ErrorCode>(ErrorCode::NotPermitted),)) },
    )?;
    guard(
        &mut types,
        "[method]descriptor.stat-at",
        |s, (fd, flags, path): &(Resource<Descriptor>, PathFlags, String)| {
            refuses(s, "stat-at", (fd, path), follows(*flags), Effect::Use)
        },
        |view, (fd, flags, path)| HostDescriptor::stat_at(view, fd, flags, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.metadata-hash-at",
        |s, (fd, flags, path): &(Resource<Descriptor>, PathFlags, String)| {
            refuses(
                s,
                "metadata-hash-at",
                (fd, path),
                follows(*flags),
                Effect::Use,
            )
        },
        |view, (fd, flags, path)| HostDescriptor::metadata_hash_at(view, fd, flags, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.set-times-at",
        |s, (fd, flags, path, _, _): &TimesAtParams| {
            refuses(s, "set-times-at", (fd, path), follows(*flags), Effect::Use)
        },
        |view, (fd, flags, path, atim, mtim)| {
            HostDescriptor::set_times_at(view, fd, flags, path, atim, mtim)
        },
    )?;
    guard(
        &mut types,
        "[method]descriptor.create-directory-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses_change(s, "create-directory-at", (fd, path), Effect::Use)
        },
        |view, (fd, path)| HostDescriptor::create_directory_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.readlink-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses(s, "readlink-at", (fd, path), false, Effect::Use)
        },
        |view, (fd, path)| HostDescriptor::readlink_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.unlink-file-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses_change(s, "unlink-file-at", (fd, path), Effect::Move)
        },
        |view, (fd, path)| HostDescriptor::unlink_file_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.remove-directory-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses_change(s, "remove-directory-at", (fd, path), Effect::Move)
        },
        |view, (fd, path)| HostDescriptor::remove_directory_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.rename-at",
        |s, (fd, old, new_fd, new): &RenameAtParams| {
            let refused = refuses(s, "rename-at", (fd, old), false, Effect::Move)
                || refuses(s, "rename-at", (new_fd, new), false, Effect::Move);
            if !refused {
                observe_write(s, fd, old, false);
                observe_write(s, new_fd, new, false);
            }
            refused
        },
        |view, (fd, old, new_fd, new)| HostDescriptor::rename_at(view, fd, old, new_fd, new),
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

type TimesAtParams = (
    Resource<Descriptor>,
    PathFlags,
    String,
    NewTimestamp,
    NewTimestamp,
);
type RenameAtParams = (Resource<Descriptor>, String, Resource<Descriptor>, String);

/// Defines `name` as: refused with `access` when `refuses` says so, else wasmtime-wasi's `call`.
fn guard<P, R>(
    types: &mut LinkerInstance<'_, HostState>,
    name: &str,
    refuses: fn(&HostState, &P) -> bool,
    call: fn(&mut WasiFilesystemCtxView<'_>, P) -> FsResult<R>,
) -> wasmtime::Result<()>
where
    P: ComponentNamedList + Lift + 'static,
    (Result<R, ErrorCode>,): ComponentNamedList + Lower + 'static,
{
    types.func_wrap(
        name,
        move |mut store: StoreContextMut<'_, HostState>, params: P| {
            if refuses(store.data(), &params) {
                return Ok((Err(ErrorCode::Access),));
            }
            let mut view = store.data_mut().filesystem();
            match call(&mut view, params) {
                Ok(value) => Ok((Ok(value),)),
                Err(error) => Ok((Err(error.downcast()?.into()),)),
            }
        },
    )
}
