import CMicroHTTPD

/// The C callbacks given to libmicrohttpd.
///
/// Each is a non-capturing closure (a capturing one crashed the 6.3.1 compiler) that reaches the
/// server through its `cls` pointer: the `ServerCore`, retained by the server for as long as the
/// daemon runs, or an `EventStream`, retained by its response until the free callback.
enum MHDCallbacks {
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, context in
        guard let cls, let connection, let url, let method, let uploadSize, let context else { return MHD_Result.NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.access(connection: connection, url: url, method: method, uploadData: uploadData,
                           uploadSize: uploadSize, context: context)
    }

    static let requestCompleted: MHD_RequestCompletedCallback = { cls, _, context, _ in
        guard let cls, let context else { return }
        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestCompleted(context: context)
    }

    static let connectionNotified: MHD_NotifyConnectionCallback = { cls, _, socketContext, code in
        guard let cls, let socketContext else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        if code == .CONNECTION_NOTIFY_STARTED {
            core.connectionOpened(socketContext: socketContext)
        } else {
            core.connectionClosed()
        }
    }

    static let streamRead: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
        guard let cls, let buffer else { return cmhd_reader_end_with_error() }
        return Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, capacity: capacity)
    }

    static let streamFreed: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<EventStream>.fromOpaque(cls).takeRetainedValue().finish()
    }
}
