#include "app/settings_saver.h"

#include <exception>
#include <utility>

#include "app/settings_file.h"

namespace app {

SettingsSaver::~SettingsSaver() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();  // the worker writes what is pending first
}

void SettingsSaver::save(std::string json_text) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_ = std::move(json_text);
    if (!worker_.joinable()) worker_ = std::thread(&SettingsSaver::run, this);
  }
  cv_.notify_all();
}

void SettingsSaver::flush() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !pending_ && !writing_; });
}

std::optional<std::string> SettingsSaver::take_error() {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<std::string> e = std::move(error_);
  error_.reset();
  return e;
}

int SettingsSaver::writes_done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return writes_;
}

void SettingsSaver::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return pending_.has_value() || stop_; });
    if (!pending_) return;  // stopped with nothing left to write
    std::string text = std::move(*pending_);
    pending_.reset();
    writing_ = true;
    lock.unlock();
    std::optional<std::string> failed;
    try {
      save_settings_text(dir_, text);
    } catch (const std::exception& e) {
      failed = e.what();
    }
    lock.lock();
    writing_ = false;
    if (failed)
      error_ = std::move(failed);
    else
      ++writes_;
    cv_.notify_all();  // flush() waits for this
  }
}

}  // namespace app
