build/obj/src/util/shell.o: src/util/shell.c src/util/shell.h \
 src/util/err.h
src/util/shell.h:
src/util/err.h:
