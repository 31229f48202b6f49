# A man page from a program's --help (run at build time: cmake -P), gzipped as Debian installs them.
#   cmake -DPROGRAM=path -DNAME=dplda -DSUMMARY="one line" -DVERSION=0.1.0 -DOUT=dir -P man_page.cmake
# The help text goes into a preformatted DESCRIPTION (roff-escaped: backslashes, leading dots,
# hyphens as \- so that options copy and search as typed).
execute_process(COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen ${PROGRAM} --help
                OUTPUT_VARIABLE help RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR help STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} --help failed (${rc}): ${err}")
endif()
string(REPLACE "\\" "\\e" help "${help}")
string(REPLACE "-" "\\-" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
string(TOUPPER "${NAME}" upper)
set(page ".TH ${upper} 1 \"\" \"${NAME} ${VERSION}\" \"User Commands\"
.SH NAME
${NAME} \\- ${SUMMARY}
.SH DESCRIPTION
.nf
${help}.fi
.SH SEE ALSO
dplda(1), dplda\\-explorer(1). The project's README.md and docs/PRIVACY.md hold the full documentation.
")
file(MAKE_DIRECTORY ${OUT})
file(WRITE ${OUT}/${NAME}.1 "${page}")
file(ARCHIVE_CREATE OUTPUT ${OUT}/${NAME}.1.gz PATHS ${OUT}/${NAME}.1 FORMAT raw COMPRESSION GZip)
