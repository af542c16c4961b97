// The value conversions and checks of the options (options.cpp's table): each reads one option's text, checks
// its range and throws ConfigError naming `where` (the option, variable or TOML key) with what was wrong and
// how to fix it; the *_name / *_text functions give a value back as the text that reads as it. Shared by the
// command line, the environment and the TOML file. Layer: libxsim (xsim_config).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config_util.hpp"
#include "options.hpp"

namespace xsim::option_values {

constexpr uint64_t kMinStack = 4 * 1024;
constexpr uint64_t kMaxStack = 1024ull * 1024 * 1024;
constexpr int64_t kMaxMatrix = 4096;
constexpr uint64_t kMinFold = 64 * 1024;

int64_t check_np(int64_t np, const std::string& where);
int64_t to_np(std::string_view v, const std::string& where);
// -xsim-mn (the network's levels and overheads; keeps the placement) and -xsim-placement.
void to_network(Options& o, std::string_view v, const std::string& where);
void to_placement(Options& o, std::string_view v, const std::string& where);
uint64_t check_stack(uint64_t bytes, const std::string& where);
uint64_t to_stack(std::string_view v, const std::string& where);
double check_scale(double f, const std::string& where);
double to_scale(std::string_view v, const std::string& where);
double check_node_factor(double f, const std::string& where);
double to_node_factor(std::string_view v, const std::string& where);
void to_node_host(Options& o, std::string_view v, const std::string& where);
std::string node_host_text(const Options& o);
PrivatizeMode to_privatize(std::string_view v, const std::string& where);
const char* privatize_name(PrivatizeMode m);
std::vector<std::string> to_lib_list(std::string_view v, const std::string& where);
CpuModel to_cpu(std::string_view v, const std::string& where);
NetModel to_model(std::string_view v, const std::string& where);
Contention to_contention(std::string_view v, const std::string& where);
const char* contention_name(Contention c);
Sharing to_sharing(std::string_view v, const std::string& where);
const char* sharing_name(Sharing s);
int64_t to_eager(std::string_view v, const std::string& where);
uint64_t to_fold(std::string_view v, const std::string& where, bool* shared);
std::vector<std::pair<int64_t, SimTime>> to_faults(std::string_view v, const std::string& where);
std::string faults_text(const Options& o);
void to_noise(Options& o, std::string_view v, const std::string& where);
void to_node_speed(Options& o, std::string_view v, const std::string& where);
void to_node_drift(Options& o, std::string_view v, const std::string& where);
void to_mtbf(Options& o, std::string_view v, const std::string& where);
std::string mtbf_text(const Options& o);
std::string to_output_path(std::string_view v, const std::string& where, const char* what);
void to_trace_format(std::string_view v, const std::string& where, Options& o);
const char* trace_format_name(const Options& o);
uint64_t to_trace_buffer(std::string_view v, const std::string& where);

// The modes with the values auto, on and off (ProgressMode, LargeScaleMode): parsing and printing.
template <typename Mode>
Mode to_auto_mode(std::string_view v, const std::string& where) {
  if (v == "auto") return Mode::automatic;
  bool b = false;
  if (!cfg::parse_bool(v, b))
    cfg::fail(where, cfg::quoted(v) + " is not auto, on or off" + cfg::suggestion(v, {"auto", "on", "off"}));
  return b ? Mode::on : Mode::off;
}

template <typename Mode>
const char* auto_mode_name(Mode m) {
  return m == Mode::automatic ? "auto" : m == Mode::on ? "on" : "off";
}



}  // namespace xsim::option_values
