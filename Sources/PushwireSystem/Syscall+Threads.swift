import CPushwireLinux

extension Syscall {
    /// Sets the calling thread's niceness (0 is the default, 19 the lowest priority). Raising it
    /// needs no privilege; lowering it below the current value needs CAP_SYS_NICE.
    public static func setThreadNiceness(_ niceness: Int32) throws(SystemError) {
        _ = try retrying("setpriority") { cpw_set_thread_niceness(niceness) }
    }

    /// Sets the calling thread's niceness to the process's plus `step` (at most 19): relative to
    /// the process, so that under `nice -n -10` the thread is at -5, not at 5 behind every other
    /// process of the machine, and not further down when an already-niced thread started it.
    public static func setThreadNiceness(aboveProcessBy step: Int32) throws(SystemError) {
        _ = try retrying("setpriority") { cpw_set_thread_niceness_above_process(step) }
    }
}
