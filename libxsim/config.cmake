# xsim_config: options (options.*: the option table; config_util.*, config_toml.hpp: text and TOML helpers),
# network specs (network_spec.*: presets and inline form, network_keys.hpp; network_toml.cpp: TOML form),
# network + placement (network_config.*), the kernel models' [kernels] table (kernels_toml.cpp) and its
# [kernels.symbols] (kernel_symbols_toml.cpp). Needs the targets xsim_common, xsim_netmodel and xsim_procmodel and PkgConfig::TOMLPP; no MPI. Included by
# libxsim/CMakeLists.txt and by the fuzz project tests/fuzz/CMakeLists.txt.
add_library(xsim_config STATIC ${CMAKE_CURRENT_LIST_DIR}/options.cpp ${CMAKE_CURRENT_LIST_DIR}/option_values.cpp ${CMAKE_CURRENT_LIST_DIR}/config_util.cpp
            ${CMAKE_CURRENT_LIST_DIR}/network_spec.cpp ${CMAKE_CURRENT_LIST_DIR}/network_toml.cpp
            ${CMAKE_CURRENT_LIST_DIR}/network_config.cpp ${CMAKE_CURRENT_LIST_DIR}/kernels_toml.cpp
            ${CMAKE_CURRENT_LIST_DIR}/kernel_symbols_toml.cpp)
target_include_directories(xsim_config PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(xsim_config PUBLIC xsim_common xsim_netmodel xsim_procmodel PRIVATE PkgConfig::TOMLPP)
