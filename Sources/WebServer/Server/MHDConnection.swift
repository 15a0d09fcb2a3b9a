import CMicroHTTPD

/// A libmicrohttpd connection pointer that may cross to a handler's task.
///
/// @unchecked Sendable: the task only calls `MHD_resume_connection`, which libmicrohttpd allows
/// from any thread, on a connection it suspended; a suspended connection is never freed until
/// resumed (shutdown resumes every one before stopping the daemon).
struct MHDConnection: @unchecked Sendable {
    let pointer: OpaquePointer

    static func resume(_ connection: OpaquePointer) {
        MHD_resume_connection(connection)
    }
}
