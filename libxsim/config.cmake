# xsim_config: options, TOML configuration, presets, network + placement (options.*, network_config.*).
# Needs the targets xsim_common and xsim_netmodel and PkgConfig::TOMLPP; no MPI. Included by
# libxsim/CMakeLists.txt and by the fuzz project tests/fuzz/CMakeLists.txt.
add_library(xsim_config STATIC ${CMAKE_CURRENT_LIST_DIR}/options.cpp ${CMAKE_CURRENT_LIST_DIR}/network_config.cpp)
target_include_directories(xsim_config PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(xsim_config PUBLIC xsim_common xsim_netmodel PRIVATE PkgConfig::TOMLPP)
