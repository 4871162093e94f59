import CPushwireLinux

extension Syscall {
    /// Sets the calling thread's niceness (0 is the default, 19 the lowest priority). Raising it
    /// needs no privilege; lowering it below the current value needs CAP_SYS_NICE.
    public static func setThreadNiceness(_ niceness: Int32) throws(SystemError) {
        _ = try retrying("setpriority") { cpw_set_thread_niceness(niceness) }
    }
}
