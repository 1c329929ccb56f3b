//! Where a command's words go on Windows, where `twinstar.exe` is built for
//! the GUI subsystem (main.rs) so that a double-click opens the game's
//! window and no console beside it. Started from a terminal it attaches to
//! that terminal's console, so `twinstar.exe synctest --headless` still
//! prints there; started with its output redirected (a script, a test) it
//! writes where it was sent; double-clicked, with nowhere to write, an
//! error is shown in a message box instead of vanishing. Elsewhere every
//! process has its terminal or its redirection already: nothing to do.

/// Whether the process has somewhere to print (a console or redirected
/// output), after attaching to its parent's console where it can.
pub fn prepare() -> bool {
    #[cfg(windows)]
    {
        windows::prepare()
    }
    #[cfg(not(windows))]
    {
        true
    }
}

/// Tells the user `text` when there is nowhere to print it: a message box
/// on Windows; elsewhere standard error (never reached: `prepare` says
/// there is always somewhere).
pub fn alert(title: &str, text: &str) {
    #[cfg(windows)]
    windows::message_box(title, text);
    #[cfg(not(windows))]
    eprintln!("{title}: {text}");
}

#[cfg(windows)]
mod windows {
    use windows_sys::Win32::Foundation::{GENERIC_READ, GENERIC_WRITE, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::Storage::FileSystem::{
        CreateFileW, FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_EXISTING,
    };
    use windows_sys::Win32::System::Console::{
        ATTACH_PARENT_PROCESS, AttachConsole, GetStdHandle, STD_ERROR_HANDLE, STD_HANDLE,
        STD_OUTPUT_HANDLE, SetStdHandle,
    };
    use windows_sys::Win32::UI::WindowsAndMessaging::{MB_ICONERROR, MB_OK, MessageBoxW};

    fn wide(text: &str) -> Vec<u16> {
        text.encode_utf16().chain(std::iter::once(0)).collect()
    }

    fn missing(which: STD_HANDLE) -> bool {
        // SAFETY: GetStdHandle only reads the process's handle table.
        let handle = unsafe { GetStdHandle(which) };
        handle.is_null() || handle == INVALID_HANDLE_VALUE
    }

    pub fn prepare() -> bool {
        let (out, err) = (missing(STD_OUTPUT_HANDLE), missing(STD_ERROR_HANDLE));
        if !out && !err {
            // Redirected by whoever started us: write there.
            return true;
        }
        // SAFETY: plain Win32 calls with valid arguments; the console
        // handle is owned by the process for its lifetime.
        unsafe {
            if AttachConsole(ATTACH_PARENT_PROCESS) == 0 {
                return false;
            }
            let name = wide("CONOUT$");
            let console = CreateFileW(
                name.as_ptr(),
                GENERIC_READ | GENERIC_WRITE,
                FILE_SHARE_READ | FILE_SHARE_WRITE,
                std::ptr::null(),
                OPEN_EXISTING,
                0,
                std::ptr::null_mut(),
            );
            if console == INVALID_HANDLE_VALUE {
                return false;
            }
            if out {
                SetStdHandle(STD_OUTPUT_HANDLE, console);
            }
            if err {
                SetStdHandle(STD_ERROR_HANDLE, console);
            }
        }
        true
    }

    pub fn message_box(title: &str, text: &str) {
        let (title, text) = (wide(title), wide(text));
        // SAFETY: both strings are NUL-terminated UTF-16 that outlive the call.
        unsafe {
            MessageBoxW(
                std::ptr::null_mut(),
                text.as_ptr(),
                title.as_ptr(),
                MB_OK | MB_ICONERROR,
            );
        }
    }
}
