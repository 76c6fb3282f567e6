build/obj/src/config/interp.o: src/config/interp.c src/config/interp.h \
 src/config/node.h src/util/err.h
src/config/interp.h:
src/config/node.h:
src/util/err.h:
