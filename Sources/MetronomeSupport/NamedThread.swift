import Glibc

/// A POSIX thread with a name (for `top -H` and the benchmark's split of CPU
/// by thread), running one closure. Stands for `pthread_create` and
/// `pthread_setname_np`.
package enum NamedThread {
    /// Starts `body` on a new thread named `name`; nil when no thread could be made.
    package static func start(named name: String, _ body: @escaping () -> Void) -> pthread_t? {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        setName(handle, name)
        return handle
    }

    /// pthread_setname_np is a GNU extension the Glibc module leaves out, so it is looked up.
    private static func setName(_ thread: pthread_t, _ name: String) {
        typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return }
        _ = unsafeBitCast(symbol, to: SetName.self)(thread, name)
    }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}
