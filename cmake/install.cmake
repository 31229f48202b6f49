# Installation (issue 26 §5): `cmake --install build [--prefix P]` puts dplda, dplda-sweep and
# dplda-explorer in bin/, the desktop entry, icon and AppStream metainfo in share/, and man pages
# generated from the programs' --help; `cpack -G DEB` (in build/) makes a .deb of the same.
include(GNUInstallDirs)
install(TARGETS dplda dplda-sweep dplda-explorer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(DPLDA_SERIAL_OPENBLAS)  # the installed programs find the serial OpenBLAS as the built ones do
  get_filename_component(serial_blas_dir ${DPLDA_SERIAL_OPENBLAS} DIRECTORY)
  set_target_properties(dplda dplda-sweep dplda-explorer PROPERTIES INSTALL_RPATH ${serial_blas_dir})
endif()
set(DPLDA_APP_ID io.github.dplda.Explorer)
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/${DPLDA_APP_ID}.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/${DPLDA_APP_ID}.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/${DPLDA_APP_ID}.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# Man pages from --help, rebuilt when the programs change.
set(man_dir ${PROJECT_BINARY_DIR}/man)
set(man_pages)
foreach(entry "dplda|differentially private spectral LDA on the command line"
              "dplda-explorer|the DP-LDA Explorer desktop app")
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 program)
  list(GET entry 1 summary)
  add_custom_command(OUTPUT ${man_dir}/${program}.1.gz
                     COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> -DNAME=${program}
                             "-DSUMMARY=${summary}" -DVERSION=${PROJECT_VERSION} -DOUT=${man_dir}
                             -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
                     DEPENDS ${program} ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
                     COMMENT "Man page of ${program} from its --help")
  list(APPEND man_pages ${man_dir}/${program}.1.gz)
endforeach()
# dplda-sweep is `dplda sweep` (its options are in dplda's help): its page points there.
file(WRITE ${man_dir}/dplda-sweep.1 ".so man1/dplda.1\n")
file(ARCHIVE_CREATE OUTPUT ${man_dir}/dplda-sweep.1.gz PATHS ${man_dir}/dplda-sweep.1 FORMAT raw COMPRESSION GZip)
list(APPEND man_pages ${man_dir}/dplda-sweep.1.gz)
add_custom_target(dplda-man-pages ALL DEPENDS ${man_pages})
install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The .deb. Its dependencies: the libraries the programs link (dpkg-shlibdeps), the serial
# OpenBLAS they load by its path (see core/CMakeLists.txt), and Qt's platform plugins (loaded at
# run time, so shlibdeps cannot see them).
set(CPACK_PACKAGE_NAME dplda-explorer)
set(CPACK_PACKAGE_VENDOR "DP-LDA Explorer")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Explore differentially private topic models (spectral LDA)")
set(CPACK_PACKAGE_DESCRIPTION "DP-LDA Explorer fits topic models (LDA) by the method of moments and makes them
differentially private by adding calibrated noise on a set of edges of the computation graph.
The desktop app dplda-explorer and the command line dplda (with dplda-sweep for figures).")
set(CPACK_PACKAGE_CONTACT "DP-LDA Explorer maintainers <dplda@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-serial, qt6-qpa-plugins")
include(CPack)
