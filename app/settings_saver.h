// Writes the settings file off the UI thread. attn::write_file_atomic syncs the file to disk,
// which can take from milliseconds to seconds on a busy disk: the frame must never wait on it.
// The UI hands over the newest text (a later one replaces one not yet written) and goes on; one
// worker thread, started on the first save, writes it. No ImGui, no App (unit-tested).
#pragma once
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace app {

class SettingsSaver {
 public:
  explicit SettingsSaver(std::string dir) : dir_(std::move(dir)) {}
  SettingsSaver(const SettingsSaver&) = delete;
  SettingsSaver& operator=(const SettingsSaver&) = delete;
  ~SettingsSaver();  // writes what is pending, then joins the worker

  // Queues `json_text` (a settings_to_json document) to be written; never blocks on I/O.
  void save(std::string json_text);
  // Waits until everything queued so far is written (at exit).
  void flush();
  // The message of the last failed write, once.
  std::optional<std::string> take_error();
  int writes_done() const;  // successful writes so far

 private:
  void run();

  const std::string dir_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::thread worker_;
  std::optional<std::string> pending_;  // guarded by mu_
  bool writing_ = false;                // guarded by mu_
  bool stop_ = false;                   // guarded by mu_
  std::optional<std::string> error_;    // guarded by mu_
  int writes_ = 0;                      // guarded by mu_
};

}  // namespace app
