# The Debian package: `cmake --workflow --preset package` (or `cpack -G DEB` in a
# release build) writes build/package/pipescope_VERSION_ARCH.deb. What it holds:
# both programs, the .desktop entry, the MIME type, the icons, the built-in device
# profiles, the man pages and the bash/zsh completions (everything `cmake --install`
# lays out). See docs/packaging.md.
include(GNUInstallDirs)

# The built-in profiles are compiled into the programs; installed as files too so a
# user can copy one, edit it, and pass it to --profile.
file(GLOB PIPESCOPE_PROFILE_JSON ${PROJECT_SOURCE_DIR}/resources/profiles/*.json)
install(FILES ${PIPESCOPE_PROFILE_JSON} DESTINATION ${CMAKE_INSTALL_DATADIR}/pipescope/profiles)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pipescope)
set(CPACK_PACKAGE_VENDOR "pipescope")
set(CPACK_PACKAGE_CONTACT "pipescope maintainers <pipescope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "live view of how a CPU-GPU pipeline spends its time")
# One string: set() with several would join them with ';'.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "pipescope runs a configurable CPU-GPU pipeline (preprocessing, host-to-device copy, GPU compute, "
  "device-to-host copy, postprocessing) on a simulator of measured GPUs, draws every operation on a "
  "live timeline, and explains what limited it. pipescope-cli does the same headless. This package "
  "is built without the CUDA backend (its cuBLAS and CUPTI libraries are not in Debian); build from "
  "source with the CUDA toolkit to run on a real GPU.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # pipescope_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
# dpkg-shlibdeps derives the library packages (Qt 6, zstd, zlib, libstdc++) from the
# binaries. Qt loads its platform plugins at run time, where dpkg-shlibdeps cannot
# see them: Debian 12's libqt6gui6 carries xcb (X11) itself, and the Wayland one is
# recommended; a font is recommended so text renders on a minimal install.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-wayland, fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
# The MIME database, desktop database and icon cache are refreshed by the dpkg
# triggers of shared-mime-info, desktop-file-utils and the icon theme: no scripts here.
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})  # not the directory cpack runs in
include(CPack)
