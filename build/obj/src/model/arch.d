build/obj/src/model/arch.o: src/model/arch.c src/model/arch.h \
 src/model/family.h src/model/shape.h src/util/err.h
src/model/arch.h:
src/model/family.h:
src/model/shape.h:
src/util/err.h:
